export * from './sha256.ts';
export * from './topic-inputs.ts';
export * from './topic-directory.ts';
export * from './topic-completion.ts';
