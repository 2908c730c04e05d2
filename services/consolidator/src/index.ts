export * from './summary-jobs.ts';
export * from './consolidator.ts';
