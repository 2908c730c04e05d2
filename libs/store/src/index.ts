export * from './database.ts';
export { connectPGliteSession, hostPGliteSession, type PGliteSession } from './pglite-remote.ts';
export * from './read-model/index.ts';
export * from './search/index.ts';
export * from './space-imports.ts';
export * from './import-jobs.ts';
export * from './topic-budget.ts';
export * from './job-leases.ts';
