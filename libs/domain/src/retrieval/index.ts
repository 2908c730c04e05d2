export * from './tokenize.ts';
export * from './bm25.ts';
export * from './rrf.ts';
export * from './fuzzy.ts';
export * from './structured-order.ts';
export * from './remember-gate.ts';
