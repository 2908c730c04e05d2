export * from './context.ts';
export * from './plugin.ts';
// What the data service's external memory import reuses: the event search and read-your-writes.
export { searchEvents } from './event-search.ts';
export { awaitProjection, catchUpReads } from './gate.ts';
