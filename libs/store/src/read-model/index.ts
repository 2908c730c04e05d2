export * from './migrate.ts';
export * from './tables.ts';
export * from './graph-rows.ts';
export * from './graph-views.ts';
export * from './statistics.ts';
export * from './json-rows.ts';
