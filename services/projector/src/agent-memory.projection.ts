import { sql, type Kysely } from 'kysely';
import type { DecodedRecord, RecordOf } from '@stratagate/domain';
import type { ReadModelTables } from '@stratagate/store';
import { memoryEventRow } from './memory-events.projection.ts';
import { indexEvents, memoryEventSearchFields, setEventStatus } from './search.projection.ts';

type Rm = Kysely<ReadModelTables>;
type Meta = DecodedRecord['meta'];

/**
 * MM-REM: applies a recorded "remember" decision. A duplicate reinforces (n + 1, anchor = the
 * recorded turn, MM-WGT-3) and writes nothing; an added event joins the agent pool with n = 1;
 * a conflict is linked both ways (MM-EVT-10); an applied MERGE/SUPERSEDE supersedes its targets
 * with the 0.1 cap. Every step is guarded by the applied position, so a redelivery changes
 * nothing.
 */
export async function onAgentMemoryRecorded(
  rm: Rm,
  schema: string,
  rec: RecordOf<'AgentMemoryRecorded'>,
  meta: Meta,
) {
  const { tenantId, spaceId } = meta.metadata;
  const space = { tenantId, spaceId };
  const d = rec.data;
  const at = meta.metadata.occurredAt;
  const events = () =>
    rm
      .updateTable('memory_events')
      .where('tenant_id', '=', tenantId)
      .where('space_id', '=', spaceId)
      .where('applied_position', '<', meta.position);

  if (d.outcome === 'REINFORCED' && d.reinforcedEventId) {
    await events()
      .set((eb) => ({
        mention_count: eb('mention_count', '+', 1),
        last_adopted_turn: d.turn,
        updated_at: at,
        applied_position: meta.position,
      }))
      .where('event_id', '=', d.reinforcedEventId)
      .where('status', 'in', ['active', 'superseded'])
      .execute();
    return;
  }
  const e = d.event;
  if (!e) return;
  const inserted = await rm
    .insertInto('memory_events')
    .values(
      memoryEventRow(e, {
        tenantId,
        spaceId,
        threadId: d.threadId,
        pool: 'agent',
        extractorVersion: null,
        blockSequence: 0,
        at,
        position: meta.position,
      }),
    )
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return;
  await indexEvents(rm, schema, space, [
    {
      id: e.id,
      threadId: d.threadId,
      blockId: e.sourceBlockId,
      createdAt: at,
      fields: memoryEventSearchFields({ ...e, sourceBlockId: e.sourceBlockId ?? '' }),
      pool: 'agent',
    },
  ]);
  if (d.conflictsWithEventIds.length > 0) {
    // The other side of the link: the older events learn they are contradicted.
    await events()
      .set({
        conflicts_with: sql`conflicts_with || ${JSON.stringify([e.id])}::jsonb` as never,
        updated_at: at,
        applied_position: meta.position,
      })
      .where('event_id', 'in', d.conflictsWithEventIds)
      .execute();
  }
  for (const target of d.supersededEventIds) {
    const superseded = await events()
      .set({
        status: 'superseded',
        superseded_by: e.id,
        forced_cap: 0.1,
        updated_at: at,
        applied_position: meta.position,
      })
      .where('event_id', '=', target)
      .where('status', '=', 'active')
      .executeTakeFirst();
    if (Number(superseded.numUpdatedRows) > 0) {
      await setEventStatus(rm, schema, space, target, 'superseded');
    }
  }
}
