import type { BlockSummaryOutput } from './summary.schema.ts';

/** One raw message of a sealed block as the summary job hands it over (a compacted copy, MM-BLK-15). */
export interface SummaryMessage {
  messageId: string;
  role: 'user' | 'assistant' | 'tool' | 'system';
  name?: string;
  content: string;
  toolCalls?: { name: string; arguments?: unknown; result?: unknown }[];
  occurredAt: string;
}

export interface BlockSummaryInput {
  blockId: string;
  threadId: string;
  messages: SummaryMessage[];
  previousSummary?: string | null;
}

export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
}

/** What the consolidator records as `BlockSummarized` (output + provenance, MM-GEN-7). */
export interface BlockSummaryResult {
  output: BlockSummaryOutput;
  provider: string;
  model?: string;
  promptVersion: string;
  usage?: ModelUsage;
}

/** L0–L2 for one block. Implementations must not write anything: the caller commits (MM-GEN-9). */
export interface ModelPort {
  readonly name: string;
  summarizeBlock(
    input: BlockSummaryInput,
    options?: { signal?: AbortSignal },
  ): Promise<BlockSummaryResult>;
}

/**
 * A provider failure. `transient` tells the job runner whether another attempt can help
 * (timeouts, 429, 5xx) or not (bad credentials, unknown model); both count against the cap.
 */
export class ModelError extends Error {
  override readonly name = 'ModelError';
  constructor(
    message: string,
    readonly code: string,
    readonly transient: boolean,
  ) {
    super(message);
  }
}
