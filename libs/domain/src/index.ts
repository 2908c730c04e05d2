export * from './records/index.ts';
export * from './space/index.ts';
export * from './blocks/index.ts';
