import type { z } from 'zod';

/** One chat-completions message; only the roles the prompts and the structured retry use. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/**
 * A versioned prompt: a pure `(context) → messages` function plus the zod schema its answer
 * must satisfy. The version is recorded with every output (MM-GEN-7), so any change to the
 * wording or the schema that could change answers needs a new version.
 */
export interface PromptModule<Input, Schema extends z.ZodType> {
  readonly version: string;
  readonly outputSchema: Schema;
  build(input: Input): ChatMessage[];
}
