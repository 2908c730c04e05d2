export * from './records/index.ts';
