export * from './block-views.ts';
export * from './read-model.queries.ts';
export * from './blocks.route.ts';
export * from './memory-events.route.ts';
export * from './graph.route.ts';
export * from './evidence.service.ts';
export * from './evidence.route.ts';
export * from './search.route.ts';
