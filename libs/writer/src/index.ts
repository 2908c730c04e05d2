export * from './space-writer.ts';
export * from './writer-snapshots.ts';
export * from './profile-writer.ts';
export * from './keyed-lock.ts';
