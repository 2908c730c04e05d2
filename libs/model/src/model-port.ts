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
  /**
   * Optional (MM-REM-4): decides what an ambiguous "remember" means. Without it, ambiguity is
   * marked as a conflict. The caller bounds it (≤ 30 s) and validates the ids it names.
   */
  decideRemember?(
    input: RememberDeciderInput,
    options?: { signal?: AbortSignal },
  ): Promise<RememberDecisionResult>;
}

/** MM-REM-4: a new agent memory and the existing events it partly overlaps. */
export interface RememberDeciderInput {
  content: string;
  category: string | null;
  candidate: { title: string; summary: string };
  matches: { id: string; title: string; summary: string; containment: number }[];
}

export interface RememberDecision {
  action: 'IGNORE' | 'MERGE' | 'SUPERSEDE' | 'KEEP_BOTH';
  targetIds: string[];
  confidence?: number | undefined;
  reason: string;
}

export interface RememberDecisionResult {
  output: RememberDecision;
  provider: string;
  model?: string;
  promptVersion: string;
  usage?: ModelUsage;
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
