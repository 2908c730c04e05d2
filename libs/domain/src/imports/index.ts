export * from './external-memory-format.ts';
export * from './import-decision.ts';
export * from './import-commit.ts';
