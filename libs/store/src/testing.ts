/** Helpers for tests only: `@stratagate/store/testing`. */
export * from './test-database.ts';
export * from './test-random.ts';
