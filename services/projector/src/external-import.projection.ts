import { sql, type Kysely } from 'kysely';
import type { DecodedRecord, RecordOf } from '@stratagate/domain';
import type { ReadModelTables } from '@stratagate/store';
import { unappliedBlock, updateBlock } from './blocks.projection.ts';
import { writeBlockEvents } from './memory-events.projection.ts';

type Rm = Kysely<ReadModelTables>;
type Meta = DecodedRecord['meta'];

/**
 * MM-IMP-8: a committed import's new events join the extracted pool, citing its source block
 * (applied just before, from the same append). MERGE and SUPERSEDE targets are superseded with
 * the 0.1 cap; a conflict is linked both ways (MM-EVT-10). The block then queues its graph job,
 * which sees exactly these events: graph work for the new events only. Guarded by the block's
 * applied position, so a redelivery changes nothing.
 */
export async function onExternalMemoryImported(
  rm: Rm,
  schema: string,
  rec: RecordOf<'ExternalMemoryImported'>,
  meta: Meta,
) {
  const b = await unappliedBlock(rm, meta, rec.data.blockId);
  if (!b || b.graph_status !== 'none' || b.event_count > 0) return;
  const { tenantId, spaceId } = meta.metadata;
  const events = rec.data.events;
  await writeBlockEvents(rm, schema, meta, b, events);
  for (const e of events) {
    const targets = e.temporal.conflictsWithEventIds;
    if (targets.length === 0) continue;
    await rm
      .updateTable('memory_events')
      .set({
        conflicts_with: sql`conflicts_with || ${JSON.stringify([e.id])}::jsonb` as never,
        updated_at: meta.metadata.occurredAt,
        applied_position: meta.position,
      })
      .where('tenant_id', '=', tenantId)
      .where('space_id', '=', spaceId)
      .where('event_id', 'in', targets)
      .where('applied_position', '<', meta.position)
      .execute();
  }
  await updateBlock(rm, meta, b.block_id, {
    event_count: events.length,
    graph_status: events.length > 0 ? 'pending' : 'none',
  });
}

const RELATION_LISTS = ['conflictsWithEventIds', 'supersedesEventIds', 'relatedEventIds'] as const;

/**
 * MM-IMP-9: the undone import's own records read as erased and make no rows; what is left is
 * the mention of its events by what came after it: the relations of later events, and the refs
 * of evidence batches and their adoptions (receipts), trimmed here so nothing points at an event
 * that is gone.
 */
export async function onExternalMemoryImportUndone(
  rm: Rm,
  schema: string,
  rec: RecordOf<'ExternalMemoryImportUndone'>,
  meta: Meta,
) {
  const ids = rec.data.eventIds;
  if (ids.length === 0) return;
  const { tenantId, spaceId } = meta.metadata;
  const without = (list: ReturnType<typeof sql>) =>
    sql`coalesce((select jsonb_agg(x) from jsonb_array_elements(${list}) x
      where not (x #>> '{}' = any(${ids}::text[]))), '[]'::jsonb)`;
  const temporal = RELATION_LISTS.reduce(
    (acc, key) =>
      sql`jsonb_set(${acc}, ${sql.lit(`{${key}}`)}::text[], ${without(
        sql`coalesce(temporal -> ${sql.lit(key)}, '[]'::jsonb)`,
      )})`,
    sql`temporal`,
  );
  await sql`
    update ${sql.table(`${schema}.memory_events`)} set
      conflicts_with = ${without(sql`conflicts_with`)},
      temporal = case when temporal ->> 'sameEventId' = any(${ids}::text[])
        then ${temporal} - 'sameEventId' else ${temporal} end
    where tenant_id = ${tenantId} and space_id = ${spaceId}
      and (conflicts_with ?| ${ids}::text[]
        or temporal -> 'conflictsWithEventIds' ?| ${ids}::text[]
        or temporal -> 'supersedesEventIds' ?| ${ids}::text[]
        or temporal -> 'relatedEventIds' ?| ${ids}::text[]
        or temporal ->> 'sameEventId' = any(${ids}::text[]))`.execute(rm);
  const refs = ids.map((id) => `event:${id}`);
  const trimmed = (list: ReturnType<typeof sql>) =>
    sql`coalesce((select jsonb_agg(x) from jsonb_array_elements(${list}) x
      where not (x #>> '{}' = any(${refs}::text[]))), '[]'::jsonb)`;
  await sql`
    update ${sql.table(`${schema}.evidence_batches`)} set
      refs = ${trimmed(sql`refs`)},
      accepted_refs = ${trimmed(sql`accepted_refs`)}
    where tenant_id = ${tenantId} and space_id = ${spaceId}
      and (refs ?| ${refs}::text[] or accepted_refs ?| ${refs}::text[])`.execute(rm);
}
