export * from './message-log.ts';
export { InvalidAppendError, assertAppendable, idempotencyKeys } from './append-validation.ts';
export { createPostgresLog, postgresLogCapabilities } from './postgres-log.ts';
export * from './new-record.ts';
export * from './tail-loop.ts';
export * from './kafka/index.ts';
export * from './kurrent/index.ts';
export {
  DataKeyStore,
  type EnsuredKey,
  type ErasureTarget,
  type PendingErasure,
} from './sealing/data-keys.ts';
export { createSealedLog, openRecords, sealRecords } from './sealing/sealed-log.ts';
export * from './message-source.ts';
export * from './table-source.ts';
