export * from './tables.ts';
export * from './migrate.ts';
export * from './maintain.ts';
export * from './query.ts';
export * from './posting-cache.ts';
export * from './event-filters.ts';
export * from './write-buffer.ts';
