export * from './config.ts';
export * from './node.ts';
export * from './reconsolidate.ts';
export * from './read-model.ts';
