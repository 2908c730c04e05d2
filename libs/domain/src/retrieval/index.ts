export * from './tokenize.ts';
