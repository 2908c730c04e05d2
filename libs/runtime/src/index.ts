export * from './config.ts';
export * from './node.ts';
export * from './reconsolidate.ts';
export * from './read-model.ts';
export * from './landing.ts';
export * from './openapi-document.ts';
export * from './console.ts';
