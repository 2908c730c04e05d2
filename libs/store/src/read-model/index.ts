export * from './migrate.ts';
export * from './tables.ts';
