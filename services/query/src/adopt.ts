import type { Kysely } from 'kysely';
import {
  adoptionFingerprint,
  decideAdoption,
  parseRef,
  RECEIPT_CONFLICT_MESSAGE,
  type DataOf,
  type ReinforceableStatus,
  type ReinforcementLookups,
  type SpaceRef,
} from '@stratagate/domain';
import { AppError, conflict, notFound } from '@stratagate/http';
import type { ReadModelTables } from '@stratagate/store';
import type { QueryContext } from './context.ts';
import type { AdoptReply } from './evidence.schema.ts';
import { batchState } from './evidence.ts';
import { catchUpReads } from './gate.ts';
import { getBatch, unresolvedBatchIds } from './read-model/batches.queries.ts';
import { eventStatuses } from './read-model/events.queries.ts';
import { nodeSourceEvents } from './read-model/graph.queries.ts';

type Adopted = DataOf<'MemoryAdopted'>;

/**
 * MM-GATE-7..9: records which evidence of a batch the answer used and reinforces the events it
 * cites; idempotent per `receiptId` (the same receipt with other refs is `receipt_conflict`).
 */
export async function adoptEvidence(
  ctx: QueryContext,
  space: SpaceRef,
  input: {
    threadId: string;
    batchId?: string | undefined;
    receiptId: string;
    evidence_refs: unknown[];
  },
): Promise<AdoptReply> {
  const { threadId } = input;
  const receiptId = input.receiptId.trim();
  const db = await catchUpReads(ctx, space);
  const batch = await getBatch(db, space, threadId, input.batchId);
  if (!batch) throw notFound('evidence_batch', input.batchId ?? '(latest)');
  const fingerprint = adoptionFingerprint(batch.batch_id, input.evidence_refs);
  const replay = async (recorded: Adopted) => {
    if (recorded.fingerprint !== fingerprint) {
      throw conflict('receipt_conflict', RECEIPT_CONFLICT_MESSAGE, { receiptId });
    }
    return answer(recorded, await unresolvedBatchIds(db, space, threadId));
  };

  const previous = await ctx.log.findByIdempotencyKey(space, `receipt:${receiptId}`);
  if (previous) return replay(previous.data as Adopted);

  const lookups = await reinforcementLookups(db, space, input.evidence_refs);
  let rejected: Extract<ReturnType<typeof decideAdoption>, { ok: false }> | null = null;
  const outcome = await ctx.writer.write(
    space,
    { occurredAt: ctx.now().toISOString(), threadId, idempotencyKey: `receipt:${receiptId}` },
    (state) => {
      const decision = decideAdoption(
        state,
        batchState(batch),
        {
          receiptId,
          threadId,
          refs: input.evidence_refs,
        },
        lookups,
      );
      if (decision.ok) return decision.records;
      rejected = decision;
      return [];
    },
  );
  if (rejected) {
    const { error, batchId, batchStatus, invalidRefs } = rejected;
    throw new AppError(422, 'adoption_rejected', `adoption rejected: ${error}`, {
      batchId,
      batchStatus,
      invalidRefs,
    });
  }
  if (outcome.status === 'duplicate') {
    // The first adoption was erased since (ADR 0046): there is nothing to answer it with.
    if (outcome.existing.erased) {
      throw conflict('receipt_erased', `receipt '${receiptId}' was erased; send a new one`);
    }
    return replay(outcome.existing.data as Adopted);
  }
  const reread = await catchUpReads(ctx, space);
  return answer(
    outcome.records[0]!.data as Adopted,
    await unresolvedBatchIds(reread, space, threadId),
  );
}

function answer(d: Adopted, unresolved: string[]): AdoptReply {
  return {
    batchId: d.batchId,
    batchStatus: 'recorded',
    receiptId: d.receiptId,
    incremented: d.eventIds.length,
    evidenceRefs: d.evidenceRefs,
    duplicateEvidenceRefs: d.duplicateEvidenceRefs,
    eventIds: d.eventIds,
    citations: d.evidenceRefs.map((ref) => ({ evidenceRef: ref, batchId: d.batchId })),
    unresolvedBatchIds: unresolved,
  };
}

/** Statuses of cited events and provenance of cited graph nodes, read once for the pure rule. */
async function reinforcementLookups(
  db: Kysely<ReadModelTables>,
  space: SpaceRef,
  refs: readonly unknown[],
): Promise<ReinforcementLookups> {
  const parsed = refs.flatMap((r) => {
    const ref = typeof r === 'string' ? parseRef(r.trim()) : null;
    return ref ? [ref] : [];
  });
  const eventIds = parsed.flatMap((r) => (r.kind === 'event' ? [r.id] : []));
  const nodeIds = parsed.flatMap((r) => (r.kind === 'graph-node' ? [r.id] : []));
  const provenance = await nodeSourceEvents(db, space, nodeIds);
  const status = await eventStatuses(db, space, [
    ...new Set([...eventIds, ...[...provenance.values()].flat()]),
  ]);
  return {
    eventStatus: (id) => status.get(id) as ReinforceableStatus | undefined,
    graphNodeProvenance: (id) => provenance.get(id),
  };
}
