import { z } from 'zod';
import { canonicalJson } from '../gate/receipt.ts';
import type { DataOf, MemoryRecord } from '../records/record-types.ts';

/**
 * The write-side state of one memory space: just enough to decide turn numbers and seals.
 * Folded from the space's own records, so it is the same on every node and after every restart.
 */
export interface SpaceWriterState {
  version: number;
  turnCounter: number;
  blockSize: number;
  decayLambda: number;
  blockSequence: number;
  /** Evidence batches opened so far: batch ids are `batch_<n>` per space. */
  batchCount: number;
  configured: boolean;
  /** The tenant profile the space is bound to (ADR 0050); `default` until bound. */
  profileId: string;
  /**
   * The version of the last record that added or changed memory events (extraction, remember,
   * pin/forget): a remember decided on an older view of the events is decided again (MM-REM-3).
   */
  memoryVersion: number;
  threads: Map<string, ThreadWriterState>;
}

export interface ThreadWriterState {
  turnCount: number;
  /** Turns of the open tail, oldest first. */
  openTurnIds: string[];
}

export const DEFAULT_BLOCK_SIZE = 12;
export const DEFAULT_THREAD_ID = 'default';

export function initialSpaceWriterState(): SpaceWriterState {
  return {
    version: 0,
    turnCounter: 0,
    blockSize: DEFAULT_BLOCK_SIZE,
    decayLambda: 0.3,
    blockSequence: 0,
    batchCount: 0,
    configured: false,
    profileId: 'default',
    memoryVersion: 0,
    threads: new Map(),
  };
}

function thread(state: SpaceWriterState, threadId: string): ThreadWriterState {
  return state.threads.get(threadId) ?? { turnCount: 0, openTurnIds: [] };
}

/**
 * The layout of a stored write-side snapshot (`snapshotSpaceWriter`). Bump it whenever
 * `SpaceWriterState` or what `evolveSpaceWriter` keeps in it changes: snapshots of another
 * format are ignored, and the state is folded from the log again.
 */
export const SPACE_WRITER_SNAPSHOT_FORMAT = 2;

const SnapshotJson = z
  .object({
    version: z.number().int().min(0),
    turnCounter: z.number().int().min(0),
    blockSize: z.number().int().min(1),
    decayLambda: z.number().finite(),
    blockSequence: z.number().int().min(0),
    batchCount: z.number().int().min(0),
    configured: z.boolean(),
    profileId: z.string().min(1),
    memoryVersion: z.number().int().min(0),
    threads: z.array(
      z.tuple([
        z.string(),
        z.object({ turnCount: z.number().int().min(0), openTurnIds: z.array(z.string()) }).strict(),
      ]),
    ),
  })
  .strict();
export type SpaceWriterSnapshot = z.infer<typeof SnapshotJson>;

/** `state` as plain JSON (format `SPACE_WRITER_SNAPSHOT_FORMAT`), detached from the live state. */
export function snapshotSpaceWriter(state: SpaceWriterState): SpaceWriterSnapshot {
  return {
    version: state.version,
    turnCounter: state.turnCounter,
    blockSize: state.blockSize,
    decayLambda: state.decayLambda,
    blockSequence: state.blockSequence,
    batchCount: state.batchCount,
    configured: state.configured,
    profileId: state.profileId,
    memoryVersion: state.memoryVersion,
    threads: [...state.threads].map(([id, t]) => [
      id,
      { turnCount: t.turnCount, openTurnIds: [...t.openTurnIds] },
    ]),
  };
}

/**
 * The state a snapshot holds, or null when `json` is not a snapshot of this format (the caller
 * then folds the space from its first record).
 */
export function restoreSpaceWriter(json: unknown): SpaceWriterState | null {
  const parsed = SnapshotJson.safeParse(json);
  if (!parsed.success) return null;
  const { threads, ...rest } = parsed.data;
  return { ...rest, threads: new Map(threads) };
}

/** Mutates and returns `state`; the caller owns it (a per-space cache), so copying would only cost. */
export function evolveSpaceWriter(
  state: SpaceWriterState,
  record: MemoryRecord,
  version: number,
): SpaceWriterState {
  state.version = version;
  switch (record.type) {
    case 'TurnRecorded': {
      const t = thread(state, record.data.threadId);
      state.threads.set(record.data.threadId, {
        turnCount: record.data.threadTurn,
        openTurnIds: [...t.openTurnIds, record.data.turnId],
      });
      state.turnCounter = record.data.spaceTurn;
      return state;
    }
    case 'BlockSealed': {
      const t = thread(state, record.data.threadId);
      const sealed = new Set(record.data.turnIds);
      state.threads.set(record.data.threadId, {
        turnCount: t.turnCount,
        openTurnIds: t.openTurnIds.filter((id) => !sealed.has(id)),
      });
      state.blockSequence = record.data.sequence;
      return state;
    }
    case 'SpaceConfigured':
      state.blockSize = record.data.blockSize;
      state.decayLambda = record.data.decayLambda;
      state.profileId = record.data.profileId ?? 'default';
      state.configured = true;
      return state;
    case 'BlockSummarized':
    case 'DerivationFailed':
    case 'DerivationRetryRequested':
    case 'ReconsolidationRequested':
    case 'ExtractionSkipped':
      return state;
    case 'EvidenceBatchOpened':
      state.batchCount += 1;
      return state;
    case 'MemoryEventsExtracted':
    case 'MemoryEventStateChanged':
    case 'AgentMemoryRecorded':
    case 'ExternalMemoryImported':
      state.memoryVersion = version;
      return state;
    case 'GraphProjected':
    case 'TopicsBuilt':
    case 'TopicJobFailed':
    case 'TopicRetryRequested':
    case 'EvidenceAssessed':
    case 'MemoryAdopted':
    case 'BlockExpanded':
      return state;
    // Profile records live in profile streams (ADR 0050), never in a space's.
    case 'ProfileCreated':
    case 'ProfileFieldChanged':
    case 'ProfileChangeProposed':
    case 'ProfileProposalResolved':
    case 'ProfileMaintained':
      return state;
    case 'ExternalMemoryImportUndone':
      // The import's records no longer fold in; its thread goes with them.
      state.memoryVersion = version;
      state.threads.delete(record.data.threadId);
      return state;
    case 'ContentErased': {
      // The erased records no longer fold in: what they counted is kept from the erasure's own
      // record, and what they left open (a thread's tail) is gone with them.
      const c = record.data.counters;
      state.turnCounter = Math.max(state.turnCounter, c.turnCounter);
      state.blockSequence = Math.max(state.blockSequence, c.blockSequence);
      state.batchCount = Math.max(state.batchCount, c.batchCount);
      if (record.data.scope === 'space') state.threads.clear();
      if (record.data.scope === 'thread') state.threads.delete(record.data.threadId!);
      return state;
    }
    default: {
      const never: never = record;
      return never;
    }
  }
}

export interface RecordTurnCommand {
  turnId: string;
  threadId: string;
  occurredAt: string;
  messages: Omit<DataOf<'TurnRecorded'>['messages'][number], 'messageId'>[];
  newMessageId: () => string;
  newBlockId: () => string;
}

type Decided = Extract<MemoryRecord, { type: 'TurnRecorded' | 'BlockSealed' }>;

/**
 * A finished turn becomes a TurnRecorded and, when the thread's open tail reaches the block size,
 * a BlockSealed in the same append (MM-BLK-3). A turn is one unit here — one user message plus the
 * reply and its traces — so a block never splits a turn. Later block-size changes only affect
 * future seals because the boundary is the recorded BlockSealed, never recomputed.
 */
export function decideRecordTurn(state: SpaceWriterState, cmd: RecordTurnCommand): Decided[] {
  const t = thread(state, cmd.threadId);
  const threadTurn = t.turnCount + 1;
  const turn: Decided = {
    type: 'TurnRecorded',
    data: {
      turnId: cmd.turnId,
      threadId: cmd.threadId,
      spaceTurn: state.turnCounter + 1,
      threadTurn,
      occurredAt: cmd.occurredAt,
      messages: cmd.messages.map((m) => ({ ...m, messageId: cmd.newMessageId() })),
    },
  };
  const open = [...t.openTurnIds, cmd.turnId];
  if (open.length < state.blockSize) return [turn];
  const seal: Decided = {
    type: 'BlockSealed',
    data: {
      blockId: cmd.newBlockId(),
      threadId: cmd.threadId,
      sequence: state.blockSequence + 1,
      turnFrom: threadTurn - open.length + 1,
      turnTo: threadTurn,
      spaceTurnTo: state.turnCounter + 1,
      turnIds: open,
      blockSize: state.blockSize,
    },
  };
  return [turn, seal];
}

/**
 * Closing a session (MM-SPACE-3: a space's threads are its sessions): the host says no more turns
 * will come soon, so the open tail is sealed now as a shorter block instead of waiting for N
 * turns that may never arrive. Without it a session's last turns would stay outside raw search,
 * summaries and extraction for good. Nothing to seal → no record (closing twice is a no-op).
 */
export function decideCloseThread(
  state: SpaceWriterState,
  cmd: { threadId: string; newBlockId: () => string },
): Extract<MemoryRecord, { type: 'BlockSealed' }>[] {
  const t = state.threads.get(cmd.threadId);
  if (!t || t.openTurnIds.length === 0) return [];
  return [
    {
      type: 'BlockSealed',
      data: {
        blockId: cmd.newBlockId(),
        threadId: cmd.threadId,
        sequence: state.blockSequence + 1,
        turnFrom: t.turnCount - t.openTurnIds.length + 1,
        turnTo: t.turnCount,
        spaceTurnTo: state.turnCounter,
        turnIds: [...t.openTurnIds],
        blockSize: state.blockSize,
        reason: 'closed',
      },
    },
  ];
}

export interface ConfigureSpaceCommand {
  blockSize?: number | undefined;
  decayLambda?: number | undefined;
  /** Binds the space to this profile of its tenant (the caller checked it exists). */
  profileId?: string | undefined;
}

export function decideConfigureSpace(
  state: SpaceWriterState,
  cmd: ConfigureSpaceCommand,
): Extract<MemoryRecord, { type: 'SpaceConfigured' }>[] {
  const blockSize = cmd.blockSize ?? state.blockSize;
  const decayLambda = cmd.decayLambda ?? state.decayLambda;
  const profileId = cmd.profileId ?? state.profileId;
  if (
    state.configured &&
    blockSize === state.blockSize &&
    decayLambda === state.decayLambda &&
    profileId === state.profileId
  ) {
    return [];
  }
  return [{ type: 'SpaceConfigured', data: { blockSize, decayLambda, profileId } }];
}

export type DerivationJobName = DataOf<'DerivationRetryRequested'>['job'];

/** MM-JOB-3: an operator asks for a failed derivation job of a block to run again. */
export function decideRetryDerivation(cmd: {
  blockId: string;
  job: DerivationJobName;
}): Extract<MemoryRecord, { type: 'DerivationRetryRequested' }>[] {
  return [{ type: 'DerivationRetryRequested', data: { blockId: cmd.blockId, job: cmd.job } }];
}

/** MM-TOP-8: a new cycle of attempts for the space's topic job; nothing for a space never written. */
export function decideRetryTopics(
  state: Pick<SpaceWriterState, 'version'>,
): Extract<MemoryRecord, { type: 'TopicRetryRequested' }>[] {
  return state.version === 0 ? [] : [{ type: 'TopicRetryRequested', data: {} }];
}

/**
 * Whether a turn sent again under a recorded `turnId` is the same turn: the same thread and
 * messages (role, name, content and tool calls, compared as JSON), and the same `occurredAt` when
 * the retry gives one (without it the first call was stamped by the server, and a retry cannot
 * know that time). Anything else under the same id is another turn, refused rather than dropped.
 */
export function isSameTurn(
  recorded: DataOf<'TurnRecorded'>,
  retry: Pick<RecordTurnCommand, 'threadId' | 'messages'> & { occurredAt?: string | undefined },
): boolean {
  if (recorded.threadId !== retry.threadId) return false;
  if (retry.occurredAt !== undefined && recorded.occurredAt !== retry.occurredAt) return false;
  if (recorded.messages.length !== retry.messages.length) return false;
  return recorded.messages.every((m, i) => {
    const r = retry.messages[i]!;
    return (
      m.role === r.role &&
      m.content === r.content &&
      (m.name ?? null) === (r.name ?? null) &&
      canonicalJson(m.toolCalls ?? []) === canonicalJson(r.toolCalls ?? [])
    );
  });
}
