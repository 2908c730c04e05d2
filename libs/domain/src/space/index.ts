export * from './space-writer.ts';
export * from './erasure.ts';
