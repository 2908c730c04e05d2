export * from './refs.ts';
export * from './assessment.ts';
export * from './adoption.ts';
export * from './receipt.ts';
export * from './gate-decisions.ts';
