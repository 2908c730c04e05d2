export * from './message-log.ts';
export { InvalidAppendError, assertAppendable, idempotencyKeys } from './append-validation.ts';
export { createPostgresLog, postgresLogCapabilities } from './postgres-log.ts';
export * from './new-record.ts';
export * from './tail-loop.ts';
export * from './kafka/index.ts';
export * from './kurrent/index.ts';
