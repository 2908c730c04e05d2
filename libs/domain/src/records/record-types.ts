import { z } from 'zod';
import { MemoryEventCard } from '../events/memory-event.ts';
import { GraphOperationSchema } from './graph-record.ts';
import {
  ProfileChangeProposed,
  ProfileCreated,
  ProfileFieldChanged,
  ProfileMaintained,
  ProfileProposalResolved,
} from './profile-records.ts';
import { TopicJobFailed, TopicRetryRequested, TopicsBuilt } from './topic-records.ts';

const Role = z.enum(['user', 'assistant', 'tool', 'system']);

export const ToolCall = z.object({
  name: z.string().min(1).max(200),
  arguments: z.unknown().optional(),
  result: z.unknown().optional(),
});
export type ToolCall = z.infer<typeof ToolCall>;

export const RecordedMessage = z.object({
  messageId: z.string().min(1),
  role: Role,
  name: z.string().max(200).optional(),
  content: z.string(),
  toolCalls: z.array(ToolCall).default([]),
});
export type RecordedMessage = z.infer<typeof RecordedMessage>;

/** A finished turn of a thread. Space and thread turn numbers are decided at ingest and recorded. */
export const TurnRecorded = z.object({
  type: z.literal('TurnRecorded'),
  data: z.object({
    turnId: z.string().min(1),
    threadId: z.string().min(1),
    /** The space's turn counter after it (MM-GEN-3); an import's source text does not move it. */
    spaceTurn: z.number().int().nonnegative(),
    threadTurn: z.number().int().positive(),
    occurredAt: z.string().min(1),
    messages: z.array(RecordedMessage).min(1),
  }),
});

/** Block boundaries are decisions: recorded so that replay never re-partitions (MM-BLK-2). */
export const BlockSealed = z.object({
  type: z.literal('BlockSealed'),
  data: z.object({
    blockId: z.string().min(1),
    threadId: z.string().min(1),
    sequence: z.number().int().positive(),
    turnFrom: z.number().int().positive(),
    turnTo: z.number().int().positive(),
    spaceTurnTo: z.number().int().nonnegative(),
    turnIds: z.array(z.string().min(1)).min(1),
    blockSize: z.number().int().positive(),
    /**
     * `size`: the tail reached N turns (MM-BLK-3); `closed`: the host closed the session;
     * `import`: the source block of an external memory import (MM-IMP-8).
     */
    reason: z.enum(['size', 'closed', 'import']).optional(),
  }),
});

export const ModelProvenance = z.object({
  provider: z.string().min(1),
  model: z.string().optional(),
  promptVersion: z.string().min(1),
  usage: z
    .object({
      inputTokens: z.number().int().nonnegative(),
      outputTokens: z.number().int().nonnegative(),
    })
    .optional(),
});

/** L0–L2 as the model (or the offline provider) produced them; replay never calls a model. */
export const BlockSummarized = z.object({
  type: z.literal('BlockSummarized'),
  data: z.object({
    blockId: z.string().min(1),
    attempt: z.number().int().positive(),
    title: z.string().min(1),
    tags: z.array(z.string().min(1)),
    summary: z.string().min(1),
    keyPoints: z.array(z.string().min(1)),
    shouldExtract: z.boolean(),
    model: ModelProvenance,
  }),
});

export const DerivationJob = z.enum(['summary', 'extraction', 'graph']);
export type DerivationJob = z.infer<typeof DerivationJob>;

export const DerivationFailed = z.object({
  type: z.literal('DerivationFailed'),
  data: z.object({
    blockId: z.string().min(1),
    job: DerivationJob,
    attempt: z.number().int().positive(),
    error: z.object({ code: z.string(), message: z.string().max(2000) }),
    /** null when the attempt cap is reached (terminal until a manual retry). */
    nextRetryAt: z.string().nullable(),
  }),
});

export const DerivationRetryRequested = z.object({
  type: z.literal('DerivationRetryRequested'),
  data: z.object({ blockId: z.string().min(1), job: DerivationJob }),
});

/**
 * An operator asked to derive a block again with the current prompt/extractor version
 * (MM-EVT-20). New records are appended; the block's earlier events are archived when the new
 * extraction lands, and stay in the log.
 */
export const ReconsolidationRequested = z.object({
  type: z.literal('ReconsolidationRequested'),
  data: z.object({
    blockId: z.string().min(1),
    job: z.literal('extraction'),
    reason: z.string().max(500),
  }),
});

/** Extraction did not run for this block; the block may turn ready on its summary alone. */
export const ExtractionSkipped = z.object({
  type: z.literal('ExtractionSkipped'),
  data: z.object({ blockId: z.string().min(1), reason: z.string().min(1) }),
});

/** Admitted memory events of one block (MM-EVT-17); may be empty for a deterministic extractor. */
export const MemoryEventsExtracted = z.object({
  type: z.literal('MemoryEventsExtracted'),
  data: z.object({
    blockId: z.string().min(1),
    attempt: z.number().int().positive(),
    events: z.array(MemoryEventCard),
    model: ModelProvenance,
  }),
});

/** The graph operations planned for one block's events (MM-GRF), recorded so replay never re-plans. */
export const GraphProjected = z.object({
  type: z.literal('GraphProjected'),
  data: z.object({
    blockId: z.string().min(1),
    attempt: z.number().int().positive(),
    eventIds: z.array(z.string()),
    operations: z.array(GraphOperationSchema),
    warnings: z.array(z.string()),
    eventNodeIds: z.record(z.string(), z.array(z.string())),
    model: ModelProvenance,
  }),
});

export const EvidenceOperation = z.enum([
  'search_events',
  'expand_event',
  'search_graph',
  'expand_graph_node',
  'search_raw',
  'list_blocks',
  'expand_block',
]);

/** MM-GATE-2: every agent retrieval or expansion opens a batch holding its refs. */
export const EvidenceBatchOpened = z.object({
  type: z.literal('EvidenceBatchOpened'),
  data: z.object({
    batchId: z.string().min(1),
    threadId: z.string().min(1),
    operation: EvidenceOperation,
    query: z.string().max(2000),
    refs: z.array(z.string()),
    /** Events shown by a search: their lastRetrievedAt is stamped (MM-WGT-4). */
    retrievedEventIds: z.array(z.string()),
  }),
});

export const EvidenceAssessed = z.object({
  type: z.literal('EvidenceAssessed'),
  data: z.object({
    batchId: z.string().min(1),
    verdict: z.enum(['sufficient', 'partial', 'wrong']),
    evidenceRefs: z.array(z.string()),
    rejectedEvidenceRefs: z.array(
      z.object({
        inputIndex: z.number(),
        ref: z.unknown(),
        reason: z.string(),
        detail: z.string(),
      }),
    ),
    fit: z.string(),
    missing: z.string(),
    nextStrategy: z.string(),
  }),
});

/** MM-GATE-8/9, MM-WGT-3/6/7: adoption closes a batch and reinforces what was actually used. */
export const MemoryAdopted = z.object({
  type: z.literal('MemoryAdopted'),
  data: z.object({
    batchId: z.string().min(1),
    receiptId: z.string().min(1),
    threadId: z.string().min(1),
    /** Space turn at adoption: the new anchor of every reinforced event (recorded, MM-GEN-7). */
    turn: z.number().int().nonnegative(),
    evidenceRefs: z.array(z.string()),
    duplicateEvidenceRefs: z.array(z.string()),
    eventIds: z.array(z.string()),
    fingerprint: z.string(),
  }),
});

/** An event recorded by an agent (MM-REM): sources may be open-tail messages, not a sealed block. */
export const AgentMemoryEvent = MemoryEventCard.extend({
  sourceBlockId: z.string().min(1).nullable(),
  sourceMessageIds: z.array(z.string()).max(6),
});

/**
 * MM-REM-1..5: one "remember" call and what the gate (and the optional model decider) decided.
 * Recorded with the decision, so replay applies it without re-running the gate or the model.
 */
export const AgentMemoryRecorded = z.object({
  type: z.literal('AgentMemoryRecorded'),
  data: z.object({
    requestId: z.string().min(1),
    threadId: z.string().min(1),
    content: z.string().min(1),
    category: z.enum(['preference', 'decision', 'correction', 'fact']).nullable(),
    outcome: z.enum(['ADDED', 'REINFORCED', 'CONFLICT_MARKED', 'IGNORED', 'MERGED', 'SUPERSEDED']),
    /** Why: clear-new, exact-duplicate, containment-duplicate, heuristic-conflict, decider, … */
    gate: z.string().min(1),
    /** Space turn of the call: the anchor of a reinforced event (MM-WGT-3). */
    turn: z.number().int().nonnegative(),
    /** The written event (ADDED, CONFLICT_MARKED, MERGED, SUPERSEDED). */
    event: AgentMemoryEvent.nullable(),
    reinforcedEventId: z.string().nullable(),
    containment: z.number().min(0).max(1).nullable(),
    /** Ambiguous hits (containment ≥ 0.35) the decision was about. */
    matchedEventIds: z.array(z.string()),
    conflictsWithEventIds: z.array(z.string()),
    supersededEventIds: z.array(z.string()),
    decider: z
      .object({
        action: z.string().nullable(),
        confidence: z.number().nullable(),
        targetIds: z.array(z.string()),
        downgradedFrom: z.enum(['MERGE', 'SUPERSEDE']).nullable(),
        error: z.string().nullable(),
        model: ModelProvenance.nullable(),
      })
      .nullable(),
    provenance: z.enum(['open_tail', 'sealed_block', 'none']),
  }),
});

/** MM-EVT-19: pin, forget (undoable) and restore a memory event; provenance is kept. */
export const MemoryEventStateChanged = z.object({
  type: z.literal('MemoryEventStateChanged'),
  data: z.object({
    eventId: z.string().min(1),
    change: z.enum(['pinned', 'unpinned', 'forgotten', 'restored']),
  }),
});

export const BlockExpanded = z.object({
  type: z.literal('BlockExpanded'),
  data: z.object({
    blockId: z.string().min(1),
    threadId: z.string().min(1),
    target: z.union([z.string(), z.number()]).nullable(),
    fromLevel: z.number().int().min(0).max(5),
    toLevel: z.number().int().min(0).max(5),
    source: z.enum(['agent', 'user']),
  }),
});

export const SpaceConfigured = z.object({
  type: z.literal('SpaceConfigured'),
  data: z.object({
    blockSize: z.number().int().min(1).max(200),
    decayLambda: z.number().finite().min(0).max(5),
    /** The tenant profile the space reads (ADR 0050); absent in older records: `default`. */
    profileId: z.string().min(1).max(64).optional(),
  }),
});

/**
 * A space, a thread or one memory event's content was erased for good, at its owner's request
 * (ADR 0046). The record holds no content: who asked, what and when. The erased records stay in
 * the log, sealed with keys that no longer exist; this record, stored in clear, keeps the write
 * side's counters as they were, so the turns and blocks that follow never reuse a number.
 */
export const ContentErased = z.object({
  type: z.literal('ContentErased'),
  data: z.object({
    erasureId: z.string().min(1),
    scope: z.enum(['space', 'thread', 'memory_event']),
    /** The erased thread (scope `thread`). */
    threadId: z.string().min(1).optional(),
    /** The memory event whose content was erased (scope `memory_event`). */
    eventId: z.string().min(1).optional(),
    /** Who asked: the API key's id, or `cli` (never a name or a reason in free text). */
    requestedBy: z.string().min(1).max(200),
    counters: z.object({
      turnCounter: z.number().int().nonnegative(),
      blockSequence: z.number().int().nonnegative(),
      batchCount: z.number().int().nonnegative(),
    }),
  }),
});

/** One candidate of an external memory import and what was decided for it (MM-IMP-4..7). */
export const ImportDecisionRecorded = z.object({
  index: z.number().int().nonnegative(),
  /** The candidate's title, for the audit of what was ignored. */
  title: z.string(),
  action: z.enum(['ADD', 'MERGE', 'SUPERSEDE', 'CONFLICT', 'IGNORE']),
  existingEventIds: z.array(z.string()),
  confidence: z.number().min(0).max(1),
  reason: z.string(),
  requiresConfirmation: z.boolean(),
  /** The user chose the action (MM-IMP-7); an unreviewed low-confidence item commits as IGNORE. */
  confirmed: z.boolean(),
  decidedBy: z.enum(['fingerprint', 'offline', 'model', 'user']),
  /** The new event this candidate wrote, for every action but IGNORE. */
  eventId: z.string().nullable(),
  model: ModelProvenance.nullable(),
});

/**
 * MM-IMP-8: an external memory import committed, appended with the turn, seal and summary of its
 * source block (thread `external-import:<blockId>`, one user message holding the whole text). It
 * carries every decision and every new event, so replay writes them without a search or a model.
 */
export const ExternalMemoryImported = z.object({
  type: z.literal('ExternalMemoryImported'),
  data: z.object({
    importId: z.string().min(1),
    blockId: z.string().min(1),
    messageId: z.string().min(1),
    source: z.object({
      format: z.enum(['v1', 'v2']),
      sourceType: z.string(),
      sourceSystem: z.string(),
      exportedAt: z.string().nullable(),
      coverage: z.enum(['full', 'partial', 'limited']),
      coverageNote: z.string().nullable(),
      uncertainItems: z.array(z.string()),
      /** The text was not valid JSON and had to be recovered (every item then confirmed). */
      recovered: z.boolean(),
    }),
    /** Space turn at the commit: the new events' formed turn (MM-EVT-17). */
    turn: z.number().int().nonnegative(),
    decisions: z.array(ImportDecisionRecorded),
    events: z.array(MemoryEventCard),
    /** Who asked: the API key's id, or `cli`. */
    requestedBy: z.string().min(1).max(200),
  }),
});

/**
 * MM-IMP-9: an import undone. The records it appended become unreadable (their thread's key is
 * deleted, ADR 0046), so its block, events and graph work leave every read model and never come
 * back on replay; this record, with ids only, says which import and who asked.
 */
export const ExternalMemoryImportUndone = z.object({
  type: z.literal('ExternalMemoryImportUndone'),
  data: z.object({
    importId: z.string().min(1),
    blockId: z.string().min(1),
    threadId: z.string().min(1),
    eventIds: z.array(z.string()),
    requestedBy: z.string().min(1).max(200),
  }),
});

export const MemoryRecord = z.discriminatedUnion('type', [
  TurnRecorded,
  BlockSealed,
  BlockSummarized,
  DerivationFailed,
  DerivationRetryRequested,
  ReconsolidationRequested,
  ExtractionSkipped,
  MemoryEventsExtracted,
  GraphProjected,
  EvidenceBatchOpened,
  EvidenceAssessed,
  MemoryAdopted,
  MemoryEventStateChanged,
  BlockExpanded,
  SpaceConfigured,
  AgentMemoryRecorded,
  ProfileCreated,
  ProfileFieldChanged,
  ProfileChangeProposed,
  ProfileProposalResolved,
  ProfileMaintained,
  ContentErased,
  ExternalMemoryImported,
  ExternalMemoryImportUndone,
  TopicsBuilt,
  TopicJobFailed,
  TopicRetryRequested,
]);
export type MemoryRecord = z.infer<typeof MemoryRecord>;
export type RecordType = MemoryRecord['type'];
export type RecordOf<T extends RecordType> = Extract<MemoryRecord, { type: T }>;
export type DataOf<T extends RecordType> = RecordOf<T>['data'];

/** Current schema version of each record type. Bump together with an upcaster below. */
export const CURRENT_SCHEMA_VERSION: Record<RecordType, number> = {
  TurnRecorded: 1,
  BlockSealed: 1,
  BlockSummarized: 1,
  DerivationFailed: 1,
  DerivationRetryRequested: 1,
  ReconsolidationRequested: 1,
  ExtractionSkipped: 1,
  MemoryEventsExtracted: 1,
  GraphProjected: 1,
  EvidenceBatchOpened: 1,
  EvidenceAssessed: 1,
  MemoryAdopted: 1,
  MemoryEventStateChanged: 1,
  BlockExpanded: 1,
  SpaceConfigured: 1,
  AgentMemoryRecorded: 1,
  ProfileCreated: 1,
  ProfileFieldChanged: 1,
  ProfileChangeProposed: 1,
  ProfileProposalResolved: 1,
  ProfileMaintained: 1,
  ContentErased: 1,
  ExternalMemoryImported: 1,
  ExternalMemoryImportUndone: 1,
  TopicsBuilt: 1,
  TopicJobFailed: 1,
  TopicRetryRequested: 1,
};
