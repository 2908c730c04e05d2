import type { ExtractionOutput, TimelineEntry } from './extraction.schema.ts';
import type { GraphProposal, GraphProposalInput } from './graph.schema.ts';
import type { BlockSummaryOutput } from './summary.schema.ts';
import type { TopicBuildInput, TopicProposal } from './topics.schema.ts';

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
  previous?: {
    blockId: string;
    keyPoints: string[];
    /** Its last user or assistant message: context for a reply that opens the block. */
    lastMessage?: ContextMessage;
  } | null;
  next?: { blockId: string; keyPoints: string[] } | null;
  /** ≤ 8 relevant + ≤ 4 most recent events; relations may name only these. */
  timeline: TimelineEntry[];
}

/** A message outside the target block, shown as context only (never cited). */
export interface ContextMessage {
  role: 'user' | 'assistant';
  name?: string;
  content: string;
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
  /**
   * Optional (MM-PRO-6): compresses the long fields of a resident profile, adding nothing. The
   * caller checks the result (long fields only, shorter, no new facts) and applies it only onto
   * the revision it read. Without it, profiles are never compressed.
   */
  compressProfile?(
    input: ProfileCompressionInput,
    options?: { signal?: AbortSignal },
  ): Promise<ProfileCompressionResult>;
  /**
   * Optional (MM-IMP-4, step 3): decides what one candidate of an external memory import does
   * to the existing events it was matched with. Without it the offline decider answers. The
   * caller normalises the answer (MM-IMP-6); ids outside the matches are dropped.
   */
  decideImport?(
    input: ImportDeciderInput,
    options?: { signal?: AbortSignal },
  ): Promise<ImportDecisionResult>;
  /**
   * Optional (MM-IMP-4, step 1): turns an export that is not valid JSON into the import format.
   * Every decision on a recovered document needs the user's confirmation (MM-IMP-6).
   */
  recoverExternalMemory?(
    input: { text: string },
    options?: { signal?: AbortSignal },
  ): Promise<ExternalMemoryRecoveryResult>;
  /**
   * Optional (MM-TOP-8): proposes chapters for a batch of ≤ 12 events and ≤ 12 candidate
   * chapters. The caller accepts the proposal whole or not at all (`decideTopicCompletion`).
   */
  buildTopics?(
    input: TopicBuildInput,
    options?: { signal?: AbortSignal },
  ): Promise<TopicBuildResult>;
}

export interface TopicBuildResult {
  output: TopicProposal;
  provider: string;
  model?: string;
  promptVersion: string;
  usage?: ModelUsage;
}

/** MM-PRO-6: the long fields of a profile that hold text, with their limits. */
export interface ProfileCompressionInput {
  fields: { field: string; value: string; limit: number }[];
}

export interface ProfileCompressionResult {
  /** The fields it rewrote; a field left out stays as it is. */
  output: { fields: { field: string; value: string }[] };
  provider: string;
  model?: string;
  promptVersion: string;
  usage?: ModelUsage;
}

/** MM-IMP-4: one import candidate and the top-K existing events its search found. */
export interface ImportDeciderInput {
  candidate: {
    title: string;
    summary: string;
    tags: string[];
    memoryKind: string;
    category: string | null;
    originalText?: string;
  };
  matches: { id: string; title: string; summary: string; status: string }[];
}

export interface ImportDecisionOutput {
  action: 'ADD' | 'MERGE' | 'SUPERSEDE' | 'CONFLICT' | 'IGNORE';
  existingEventIds: string[];
  mergedCandidate?: { title: string; summary: string; tags?: string[] } | undefined;
  reason: string;
  confidence?: number | undefined;
}

export interface ImportDecisionResult {
  output: ImportDecisionOutput;
  provider: string;
  model?: string;
  promptVersion: string;
  usage?: ModelUsage;
}

export interface ExternalMemoryRecoveryResult {
  /** The document as the model rewrote it; the caller checks it against the format. */
  output: Record<string, unknown>;
  provider: string;
  model?: string;
  promptVersion: string;
  usage?: ModelUsage;
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
