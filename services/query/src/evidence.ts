import {
  decideAssessment,
  decideEventStateChange,
  type AssessmentInput,
  type EventStateChangeRequest,
  type SpaceRef,
} from '@stratagate/domain';
import { boundedPage, conflict, notFound } from '@stratagate/http';
import type { EvidenceBatchRow } from '@stratagate/store';
import { readModel, type QueryContext } from './context.ts';
import type {
  AssessReply,
  BatchListReply,
  EventStateChangeReply,
  ExpandEventReply,
} from './evidence.schema.ts';
import { catchUpReads, openBatch } from './gate.ts';
import { eventCard } from './memory-events.ts';
import { getBatch, listBatches } from './read-model/batches.queries.ts';
import { getEvent, VISIBLE_STATUSES } from './read-model/events.queries.ts';
import { requireSpace } from './spaces.ts';

/** The gate's view of a batch row. */
export const batchState = (b: EvidenceBatchRow) => ({
  id: b.batch_id,
  status: b.status,
  refs: b.refs,
  acceptedRefs: b.accepted_refs,
});

/** Expands a memory event: the whole card, in an evidence batch holding `event:<id>`. */
export async function expandEvent(
  ctx: QueryContext,
  space: SpaceRef,
  input: { eventId: string; threadId: string },
): Promise<ExpandEventReply> {
  const db = readModel(ctx);
  const spaceRow = await requireSpace(db, space);
  const row = await getEvent(db, space, input.eventId, VISIBLE_STATUSES);
  if (!row) throw notFound('memory_event', input.eventId);
  const ref = `event:${row.event_id}`;
  const { batchId } = await openBatch(ctx, space, {
    threadId: input.threadId,
    operation: 'expand_event',
    query: row.event_id,
    refs: [ref],
    retrievedEventIds: [],
  });
  return { batchId, evidenceRefs: [ref], event: eventCard(row, spaceRow.turn_counter) };
}

/** MM-EVT-19: pins, unpins, forgets (undoably) or restores an event of the space. */
export async function changeEventState(
  ctx: QueryContext,
  space: SpaceRef,
  input: { eventId: string; change: EventStateChangeRequest },
): Promise<EventStateChangeReply> {
  const row = await getEvent(readModel(ctx), space, input.eventId);
  if (!row) throw notFound('memory_event', input.eventId);
  const [record] = decideEventStateChange({ eventId: row.event_id, change: input.change });
  const outcome = await ctx.writer.write(space, { occurredAt: ctx.now().toISOString() }, () => [
    record,
  ]);
  const position = outcome.status === 'appended' ? (outcome.records[0]?.position ?? null) : null;
  return { eventId: row.event_id, change: record.data.change, position };
}

/**
 * MM-GATE-3..6: records the agent's judgement of a batch (the latest by default). `sufficient`
 * stands only with an accepted ref and `answer`; the last assessment of an unresolved batch wins.
 */
export async function assessEvidence(
  ctx: QueryContext,
  space: SpaceRef,
  input: { threadId: string; batchId?: string | undefined } & AssessmentInput,
): Promise<AssessReply> {
  const { threadId } = input;
  const db = await catchUpReads(ctx, space);
  const batch = await getBatch(db, space, threadId, input.batchId);
  if (!batch) throw notFound('evidence_batch', input.batchId ?? '(latest)');
  const decision = decideAssessment(batchState(batch), input);
  if (!decision.ok) {
    throw conflict(
      'batch_recorded',
      `batch '${batch.batch_id}' is already recorded and cannot be assessed`,
    );
  }
  await ctx.writer.write(
    space,
    { occurredAt: ctx.now().toISOString(), threadId },
    () => decision.records,
  );
  const latest = await getBatch(db, space, threadId, undefined);
  return {
    batchId: batch.batch_id,
    batchStatus: batch.status,
    latestBatchId: latest?.batch_id ?? batch.batch_id,
    ...decision.assessment,
  };
}

/** The thread's evidence batches, oldest first: unresolved ones must be closed (MM-GATE-10). */
export async function listEvidenceBatches(
  ctx: QueryContext,
  space: SpaceRef,
  input: {
    threadId: string;
    status: EvidenceBatchRow['status'] | 'all';
    limit: number;
    offset: number;
  },
): Promise<BatchListReply> {
  const db = await catchUpReads(ctx, space);
  const rows = await listBatches(db, space, input.threadId, input.status, {
    limit: input.limit + 1,
    offset: input.offset,
  });
  const page = boundedPage(
    rows.map((b) => ({
      batchId: b.batch_id,
      operation: b.operation,
      query: b.query,
      status: b.status,
      verdict: b.verdict,
      evidenceRefs: b.refs,
      acceptedRefs: b.accepted_refs,
      openedAt: b.opened_at,
    })),
    input,
  );
  return { nextOffset: page.nextOffset, truncated: page.truncated, batches: page.items };
}
