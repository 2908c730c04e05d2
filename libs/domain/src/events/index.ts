export * from './memory-event.ts';
export * from './temporal-repair.ts';
export * from './catalog-hints.ts';
export * from './admission.ts';
export * from './weight.ts';
export * from './remember.ts';
export * from './remember-decision.ts';
