import type { ExtractionOutput, TimelineEntry } from './extraction.schema.ts';
import type { GraphProposal, GraphProposalInput } from './graph.schema.ts';
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

/** What the extractor sees (MM-EVT-13): the target block, its neighbours' L2, a timeline. */
export interface ExtractionInput {
  blockId: string;
  threadId: string;
  /** The target block's compacted messages; only their ids may be cited. */
  messages: SummaryMessage[];
  previous?: { blockId: string; keyPoints: string[] } | null;
  next?: { blockId: string; keyPoints: string[] } | null;
  /** ≤ 8 relevant + ≤ 4 most recent events; relations may name only these. */
  timeline: TimelineEntry[];
}

export interface ExtractionResult {
  output: ExtractionOutput;
  provider: string;
  model?: string;
  promptVersion: string;
  usage?: ModelUsage;
}

/** Model-driven derivations. Implementations write nothing: the caller commits (MM-GEN-9). */
export interface ModelPort {
  readonly name: string;
  /**
   * Same input, same output (the offline provider). A retry cannot change such a result, so an
   * empty extraction is recorded as "found nothing" instead of failing the job (ADR 0004).
   */
  readonly deterministic?: boolean;
  summarizeBlock(
    input: BlockSummaryInput,
    options?: { signal?: AbortSignal },
  ): Promise<BlockSummaryResult>;
  /** Optional until every provider has it; without it extraction is recorded as skipped. */
  extractMemoryEvents?(
    input: ExtractionInput,
    options?: { signal?: AbortSignal },
  ): Promise<ExtractionResult>;
  /** Optional: proposes graph nodes, facts and edges for a batch of events (MM-GRF). */
  proposeGraph?(
    input: GraphProposalInput,
    options?: { signal?: AbortSignal },
  ): Promise<GraphProposalResult>;
}

export interface GraphProposalResult {
  output: GraphProposal;
  provider: string;
  model?: string;
  promptVersion: string;
  usage?: ModelUsage;
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
