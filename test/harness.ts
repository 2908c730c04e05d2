/** The cross-service tests' harness: a whole node on a fresh database. */
export * from '@stratagate/runtime/testing';
