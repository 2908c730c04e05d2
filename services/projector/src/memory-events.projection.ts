import { sql, type Kysely } from 'kysely';
import type { DecodedRecord, MemoryEventCard, RecordOf } from '@stratagate/domain';
import type { BlockRow, ReadModelTables } from '@stratagate/store';
import { readyFields, unappliedBlock, updateBlock } from './blocks.projection.ts';
import { indexEvents, memoryEventSearchFields, setEventStatus } from './search.projection.ts';

type Rm = Kysely<ReadModelTables>;
type Meta = DecodedRecord['meta'];

/**
 * Admitted events become rows with weight n = 1 anchored at their formed turn (MM-EVT-17). A
 * supersede relation marks the target superseded with a 0.1 cap; the target's content and sources
 * never change, and a target forgotten meanwhile is not revived (MM-EVT-9/15). Conflicts are kept
 * on the new event only (MM-EVT-10).
 */
export async function onMemoryEventsExtracted(
  rm: Rm,
  schema: string,
  rec: RecordOf<'MemoryEventsExtracted'>,
  meta: Meta,
) {
  const b = await unappliedBlock(rm, meta, rec.data.blockId);
  if (!b || b.extraction_status === 'succeeded' || b.extraction_status === 'skipped') return;
  const { tenantId, spaceId } = meta.metadata;
  const events = rec.data.events;
  const space = { tenantId, spaceId };
  if (b.extraction_cycle > 0) {
    // A re-extraction replaces the block's earlier events: archived, never deleted (MM-EVT-19).
    const archived = await rm
      .updateTable('memory_events')
      .set({
        status: 'archived',
        updated_at: meta.metadata.occurredAt,
        applied_position: meta.position,
      })
      .where('tenant_id', '=', tenantId)
      .where('space_id', '=', spaceId)
      .where('source_block_id', '=', b.block_id)
      .where('status', 'in', ['active', 'superseded'])
      .where('applied_position', '<', meta.position)
      .returning('event_id')
      .execute();
    await setEventStatus(
      rm,
      schema,
      space,
      archived.map((r) => r.event_id),
      'archived',
    );
  }
  await writeBlockEvents(rm, schema, meta, b, events);
  const next: BlockRow = { ...b, extraction_status: 'succeeded', event_count: events.length };
  await updateBlock(rm, meta, b.block_id, {
    extraction_status: 'succeeded',
    extraction_attempts: rec.data.attempt,
    extraction_next_retry_at: null,
    extraction_last_error: null,
    event_count: events.length,
    // Each extracted batch is queued once for the graph (MM-GRF-10); failures never block reads.
    graph_status: events.length > 0 ? 'pending' : 'none',
    ...(await readyFields(rm, meta, next)),
  });
}

/**
 * Writes a block's new events (n = 1, anchored at their formed turn, MM-EVT-17), indexes them,
 * and applies their supersede relations: the target becomes superseded with the 0.1 cap, its
 * content and sources unchanged, and a target forgotten meanwhile is not revived (MM-EVT-9/15).
 */
/** A new memory event's row, extracted or recorded by an agent: active, mentioned once. */
export function memoryEventRow(
  e: Omit<MemoryEventCard, 'sourceBlockId' | 'extractorVersion'> & {
    sourceBlockId: string | null;
  },
  where: {
    tenantId: string;
    spaceId: string;
    threadId: string;
    pool: 'extracted' | 'agent';
    extractorVersion: number | null;
    blockSequence: number;
    at: string;
    position: number;
  },
) {
  return {
    tenant_id: where.tenantId,
    space_id: where.spaceId,
    event_id: e.id,
    source_block_id: e.sourceBlockId,
    thread_id: where.threadId,
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
    status: 'active' as const,
    superseded_by: null,
    mention_count: 1,
    last_adopted_turn: e.formedTurn,
    pinned: false,
    forced_cap: null,
    catalog_hints: JSON.stringify(e.catalogHints) as never,
    extractor_version: where.extractorVersion,
    formed_turn: e.formedTurn,
    block_sequence: where.blockSequence,
    created_at: where.at,
    updated_at: where.at,
    record_position: where.position,
    participant_node_ids: '[]' as never,
    pool: where.pool,
    conflicts_with: '[]' as never,
    applied_position: where.position,
  };
}

export async function writeBlockEvents(
  rm: Rm,
  schema: string,
  meta: Meta,
  b: BlockRow,
  events: readonly MemoryEventCard[],
): Promise<void> {
  if (events.length === 0) return;
  const { tenantId, spaceId } = meta.metadata;
  const space = { tenantId, spaceId };
  await rm
    .insertInto('memory_events')
    .values(
      events.map((e) =>
        memoryEventRow(e, {
          tenantId,
          spaceId,
          threadId: e.temporal.threadId ?? b.thread_id,
          pool: 'extracted',
          extractorVersion: e.extractorVersion ?? null,
          blockSequence: b.sequence,
          at: meta.metadata.occurredAt,
          position: meta.position,
        }),
      ),
    )
    .onConflict((oc) => oc.doNothing())
    .execute();
  await indexEvents(
    rm,
    schema,
    space,
    events.map((e) => ({
      id: e.id,
      threadId: e.temporal.threadId ?? b.thread_id,
      blockId: e.sourceBlockId,
      createdAt: meta.metadata.occurredAt,
      fields: memoryEventSearchFields(e),
    })),
  );
  // Supersede relations, in one statement: the first new event naming a target wins (as the
  // rows would in record order), and a target that is not active or was written by this very
  // record is left alone.
  const supersededBy = new Map<string, string>();
  for (const e of events) {
    for (const target of e.temporal.supersedesEventIds) {
      if (!supersededBy.has(target)) supersededBy.set(target, e.id);
    }
  }
  if (supersededBy.size > 0) {
    // Addressed by the primary key (event_id = any(…)); the superseding id is looked up in a
    // map, so no join that a planner without statistics could turn into a scan per target.
    const superseded = await sql<{ event_id: string }>`
      update ${sql.table(`${schema}.memory_events`)} set
        status = 'superseded',
        superseded_by = ${JSON.stringify(Object.fromEntries(supersededBy))}::jsonb ->> event_id,
        forced_cap = 0.1,
        updated_at = ${meta.metadata.occurredAt},
        applied_position = ${meta.position}
      where tenant_id = ${tenantId} and space_id = ${spaceId}
        and event_id = any(${[...supersededBy.keys()]}::text[])
        and status = 'active' and applied_position < ${meta.position}
      returning event_id`.execute(rm);
    // Only targets that really changed move in the index: a forgotten one stays out.
    await setEventStatus(
      rm,
      schema,
      space,
      superseded.rows.map((r) => r.event_id),
      'superseded',
    );
  }
}

/**
 * MM-EVT-19 / MM-WGT-1: pinned weighs 1; forgotten leaves search, timelines, graph views and
 * recall (weight 0) but keeps its provenance; restore brings it back as it was (superseded if it
 * had been superseded before).
 */
export async function onMemoryEventStateChanged(
  rm: Rm,
  schema: string,
  rec: RecordOf<'MemoryEventStateChanged'>,
  meta: Meta,
) {
  const { tenantId, spaceId } = meta.metadata;
  const row = await rm
    .selectFrom('memory_events')
    .select(['status', 'superseded_by', 'applied_position'])
    .where('tenant_id', '=', tenantId)
    .where('space_id', '=', spaceId)
    .where('event_id', '=', rec.data.eventId)
    .executeTakeFirst();
  if (!row || Number(row.applied_position) >= meta.position) return;
  const base = { updated_at: meta.metadata.occurredAt, applied_position: meta.position };
  let set: Record<string, unknown>;
  let indexStatus: string | null = null;
  switch (rec.data.change) {
    case 'pinned':
    case 'unpinned':
      set = { ...base, pinned: rec.data.change === 'pinned' };
      break;
    case 'forgotten':
      if (row.status === 'forgotten' || row.status === 'archived') return;
      set = { ...base, status: 'forgotten' };
      indexStatus = 'forgotten';
      break;
    case 'restored': {
      if (row.status !== 'forgotten') return;
      const status = row.superseded_by ? 'superseded' : 'active';
      set = { ...base, status };
      indexStatus = status;
      break;
    }
    default: {
      const never: never = rec.data.change;
      return never;
    }
  }
  await rm
    .updateTable('memory_events')
    .set(set as never)
    .where('tenant_id', '=', tenantId)
    .where('space_id', '=', spaceId)
    .where('event_id', '=', rec.data.eventId)
    .execute();
  if (indexStatus) {
    await setEventStatus(rm, schema, { tenantId, spaceId }, rec.data.eventId, indexStatus);
  }
}
