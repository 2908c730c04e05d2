export * from './space-writer.service.ts';
export * from './turns.schema.ts';
export * from './turns.route.ts';
export * from './writer-snapshots.ts';
export * from './backpressure.ts';
