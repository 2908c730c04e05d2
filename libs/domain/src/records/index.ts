export * from './envelope.ts';
export * from './record-types.ts';
export * from './codec.ts';
