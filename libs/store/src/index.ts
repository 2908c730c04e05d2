export * from './database.ts';
export * from './test-database.ts';
