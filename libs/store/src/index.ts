export * from './database.ts';
export { connectPGliteSession, hostPGliteSession, type PGliteSession } from './pglite-remote.ts';
export * from './test-database.ts';
export * from './read-model/index.ts';
export * from './search/index.ts';
