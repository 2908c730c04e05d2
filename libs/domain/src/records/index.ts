export * from './envelope.ts';
export * from './record-types.ts';
export * from './codec.ts';
export * from './profile-records.ts';
export * from './sealing.ts';
export * from './topic-records.ts';
