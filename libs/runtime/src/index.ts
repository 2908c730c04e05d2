export * from './config.ts';
export * from './node.ts';
