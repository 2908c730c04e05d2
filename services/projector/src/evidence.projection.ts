import type { Kysely } from 'kysely';
import type { DecodedRecord, RecordOf } from '@stratagate/domain';
import type { ReadModelTables } from '@stratagate/store';

type Rm = Kysely<ReadModelTables>;
type Meta = DecodedRecord['meta'];
const json = (v: unknown) => JSON.stringify(v) as never;

/** MM-GATE-2: the batch with its refs; the events it showed get lastRetrievedAt (MM-WGT-4). */
export async function onEvidenceBatchOpened(
  rm: Rm,
  rec: RecordOf<'EvidenceBatchOpened'>,
  meta: Meta,
) {
  const { tenantId, spaceId } = meta.metadata;
  const d = rec.data;
  await rm
    .insertInto('evidence_batches')
    .values({
      tenant_id: tenantId,
      space_id: spaceId,
      batch_id: d.batchId,
      thread_id: d.threadId,
      operation: d.operation,
      query: d.query,
      refs: json(d.refs),
      status: 'unresolved',
      verdict: null,
      accepted_refs: json([]),
      assessment: null,
      receipt_id: null,
      opened_at: meta.metadata.occurredAt,
      opened_position: meta.position,
      applied_position: meta.position,
    })
    .onConflict((oc) => oc.doNothing())
    .execute();
  if (d.retrievedEventIds.length > 0) {
    // A search only stamps last-retrieved; it never changes n or the anchor.
    await rm
      .updateTable('memory_events')
      .set({ last_retrieved_at: meta.metadata.occurredAt })
      .where('tenant_id', '=', tenantId)
      .where('space_id', '=', spaceId)
      .where('event_id', 'in', d.retrievedEventIds)
      .execute();
  }
}

/** MM-GATE-6: the last assessment of an unresolved batch wins. */
export async function onEvidenceAssessed(rm: Rm, rec: RecordOf<'EvidenceAssessed'>, meta: Meta) {
  const { tenantId, spaceId } = meta.metadata;
  const d = rec.data;
  await rm
    .updateTable('evidence_batches')
    .set({
      verdict: d.verdict,
      accepted_refs: json(d.verdict === 'sufficient' ? d.evidenceRefs : []),
      assessment: json(d),
      applied_position: meta.position,
    })
    .where('tenant_id', '=', tenantId)
    .where('space_id', '=', spaceId)
    .where('batch_id', '=', d.batchId)
    .where('status', '=', 'unresolved')
    .where('applied_position', '<', meta.position)
    .execute();
}

/**
 * MM-WGT-3: an accepted adoption adds 1 to n (once per event per call) and moves the anchor to
 * the recorded turn; forgotten and archived events are skipped. The batch is closed.
 */
export async function onMemoryAdopted(rm: Rm, rec: RecordOf<'MemoryAdopted'>, meta: Meta) {
  const { tenantId, spaceId } = meta.metadata;
  const d = rec.data;
  const closed = await rm
    .updateTable('evidence_batches')
    .set({ status: 'recorded', receipt_id: d.receiptId, applied_position: meta.position })
    .where('tenant_id', '=', tenantId)
    .where('space_id', '=', spaceId)
    .where('batch_id', '=', d.batchId)
    .where('applied_position', '<', meta.position)
    .executeTakeFirst();
  // Delivered twice: the batch row already carries this position, so nothing is reinforced again.
  if (Number(closed.numUpdatedRows) === 0) return;
  if (d.eventIds.length === 0) return;
  await rm
    .updateTable('memory_events')
    .set((eb) => ({
      mention_count: eb('mention_count', '+', 1),
      last_adopted_turn: d.turn,
      updated_at: meta.metadata.occurredAt,
      applied_position: meta.position,
    }))
    .where('tenant_id', '=', tenantId)
    .where('space_id', '=', spaceId)
    .where('event_id', 'in', [...new Set(d.eventIds)])
    .where('status', 'in', ['active', 'superseded'])
    .where('applied_position', '<', meta.position)
    .execute();
}
