export * from './init.ts';
export * from './trace-context.ts';
export * from './spans.ts';
export * from './metrics.ts';
export * from './record-batch.ts';
export * from './jobs.ts';
export * from './log-mixin.ts';
