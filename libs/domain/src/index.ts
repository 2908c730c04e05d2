export * from './records/index.ts';
export * from './space/index.ts';
export * from './blocks/index.ts';
export * from './events/index.ts';
export * from './retrieval/index.ts';
export * from './graph/index.ts';
export * from './gate/index.ts';
