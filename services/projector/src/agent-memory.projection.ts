import { sql, type Kysely } from 'kysely';
import type { DecodedRecord, RecordOf } from '@stratagate/domain';
import type { ReadModelTables } from '@stratagate/store';
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
    .values({
      tenant_id: tenantId,
      space_id: spaceId,
      event_id: e.id,
      source_block_id: e.sourceBlockId,
      thread_id: d.threadId,
      title: e.title,
      summary: e.summary,
      tags: JSON.stringify(e.tags) as never,
      quotes: JSON.stringify(e.quotes) as never,
      source_message_ids: JSON.stringify(e.sourceMessageIds) as never,
      scope: e.scope,
      criticality: e.criticality,
      event_type: e.temporal.eventType,
      temporal: JSON.stringify(e.temporal) as never,
      mentioned_at: e.temporal.mentionedAt ?? null,
      happened_start: e.temporal.happenedStart ?? null,
      happened_end: e.temporal.happenedEnd ?? null,
      status: 'active',
      superseded_by: null,
      mention_count: 1,
      last_adopted_turn: e.formedTurn,
      pinned: false,
      forced_cap: null,
      catalog_hints: JSON.stringify(e.catalogHints) as never,
      extractor_version: null,
      formed_turn: e.formedTurn,
      block_sequence: 0,
      created_at: at,
      updated_at: at,
      record_position: meta.position,
      participant_node_ids: '[]' as never,
      pool: 'agent',
      conflicts_with: '[]' as never,
      applied_position: meta.position,
    })
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
