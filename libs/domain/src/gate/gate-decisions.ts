import type { DataOf, RecordOf } from '../records/record-types.ts';
import {
  reinforcementTargets,
  validateAdoption,
  type AdoptionBatch,
  type AdoptionValidation,
  type BatchStatus,
  type ReinforcementLookups,
} from './adoption.ts';
import { normaliseAssessment, type Assessment, type AssessmentInput } from './assessment.ts';
import { receiptFingerprint } from './receipt.ts';

/*
 * The records the evidence gate appends, decided from a command and the state they depend on
 * (emmett's `decide(command, state) → records`). No I/O: the callers read the batch from the read
 * model and the space's counters from the space writer, and append what comes back.
 */

export interface OpenBatchCommand {
  threadId: string;
  operation: DataOf<'EvidenceBatchOpened'>['operation'];
  query: string;
  refs: string[];
  retrievedEventIds: string[];
}

/**
 * MM-GATE-2: a retrieval or expansion opens `batch_<n>`, numbered per space from the write-side
 * count of batches opened so far, so two concurrent searches never share an id.
 */
export function decideOpenBatch(
  state: { batchCount: number },
  cmd: OpenBatchCommand,
): [RecordOf<'EvidenceBatchOpened'>] {
  return [
    {
      type: 'EvidenceBatchOpened',
      data: { batchId: `batch_${state.batchCount + 1}`, ...cmd },
    },
  ];
}

/** A batch as the gate sees it: its status, the refs it showed and those last accepted. */
export interface BatchState {
  id: string;
  status: BatchStatus;
  refs: readonly string[];
  /** Refs accepted by the batch's latest assessment if it was sufficient; empty otherwise. */
  acceptedRefs: readonly string[];
}

export type AssessmentDecision =
  | { ok: true; assessment: Assessment; records: [RecordOf<'EvidenceAssessed'>] }
  | { ok: false; error: 'batch_recorded' };

/** MM-GATE-3..6: a recorded batch cannot be assessed; otherwise the normalised assessment. */
export function decideAssessment(batch: BatchState, input: AssessmentInput): AssessmentDecision {
  if (batch.status === 'recorded') return { ok: false, error: 'batch_recorded' };
  const assessment = normaliseAssessment(input, new Set(batch.refs));
  return {
    ok: true,
    assessment,
    records: [
      {
        type: 'EvidenceAssessed',
        data: {
          batchId: batch.id,
          ...assessment,
          rejectedEvidenceRefs: assessment.rejectedEvidenceRefs.map((r) => ({ ...r })),
        },
      },
    ],
  };
}

export interface AdoptionCommand {
  receiptId: string;
  threadId: string;
  /** The refs as the agent sent them (any JSON values). */
  refs: readonly unknown[];
}

/**
 * What identifies an adoption for its receipt (MM-WGT-6): the batch and the set of refs sent.
 * The same receipt with another fingerprint is a conflict, the same one a replay.
 */
export function adoptionFingerprint(batchId: string, refs: readonly unknown[]): string {
  const distinct = [...new Set(refs.map((r) => (typeof r === 'string' ? r.trim() : r)))];
  return receiptFingerprint([], { batchId, refs: distinct.map(String).sort() });
}

export type AdoptionDecision =
  { ok: true; records: [RecordOf<'MemoryAdopted'>] } | Extract<AdoptionValidation, { ok: false }>;

/**
 * MM-GATE-7..9 and MM-WGT-3/5: an adoption is all or nothing; the accepted refs reinforce the
 * events they cite (a node's visible provenance), anchored at the space's turn now.
 */
export function decideAdoption(
  state: { turnCounter: number },
  batch: BatchState,
  cmd: AdoptionCommand,
  lookups: ReinforcementLookups,
): AdoptionDecision {
  const adoptionBatch: AdoptionBatch = {
    id: batch.id,
    status: batch.status,
    refs: new Set(batch.refs),
    acceptedRefs: new Set(batch.acceptedRefs),
  };
  const check = validateAdoption({ refs: cmd.refs, batch: adoptionBatch });
  if (!check.ok) return check;
  return {
    ok: true,
    records: [
      {
        type: 'MemoryAdopted',
        data: {
          batchId: batch.id,
          receiptId: cmd.receiptId,
          threadId: cmd.threadId,
          turn: state.turnCounter,
          evidenceRefs: check.evidenceRefs,
          duplicateEvidenceRefs: check.duplicateEvidenceRefs,
          eventIds: reinforcementTargets(check.evidenceRefs, lookups),
          fingerprint: adoptionFingerprint(batch.id, cmd.refs),
        },
      },
    ],
  };
}

export const EVENT_STATE_CHANGES = ['pin', 'unpin', 'forget', 'restore'] as const;
export type EventStateChangeRequest = (typeof EVENT_STATE_CHANGES)[number];

const RECORDED_CHANGE = {
  pin: 'pinned',
  unpin: 'unpinned',
  forget: 'forgotten',
  restore: 'restored',
} as const satisfies Record<EventStateChangeRequest, DataOf<'MemoryEventStateChanged'>['change']>;

/** MM-EVT-19: pin, unpin, forget (undoable) or restore an event the space holds. */
export function decideEventStateChange(cmd: {
  eventId: string;
  change: EventStateChangeRequest;
}): [RecordOf<'MemoryEventStateChanged'>] {
  return [
    {
      type: 'MemoryEventStateChanged',
      data: { eventId: cmd.eventId, change: RECORDED_CHANGE[cmd.change] },
    },
  ];
}
