export * from './projection.ts';
export * from './checkpoints.ts';
export * from './runner.ts';
export * from './core.projection.ts';
export * from './graph-search.projection.ts';
export * from './versions.ts';
export * from './rebuild.ts';
export * from './kafka-runner.ts';
