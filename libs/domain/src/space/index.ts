export * from './space-writer.ts';
