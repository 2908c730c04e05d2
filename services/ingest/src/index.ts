export * from './context.ts';
export * from './turns.schema.ts';
export * from './turns.route.ts';
export * from './record-turn.ts';
export * from './space-commands.ts';
export * from './backpressure.ts';
