import type { Kysely } from 'kysely';
import type { SpaceRef } from '@stratagate/domain';
import type {
  AnyDb,
  BlockRow,
  MemoryEventStatus,
  ReadModelTables,
  SpaceRow,
} from '@stratagate/store';

/** Data access as plain functions taking `db`, confined to one tenant's space by construction. */
export function rm(db: AnyDb, schema: string): Kysely<ReadModelTables> {
  return (db as Kysely<ReadModelTables>).withSchema(schema);
}

export async function getSpace(
  db: Kysely<ReadModelTables>,
  s: SpaceRef,
): Promise<SpaceRow | undefined> {
  return db
    .selectFrom('spaces')
    .selectAll()
    .where('tenant_id', '=', s.tenantId)
    .where('space_id', '=', s.spaceId)
    .executeTakeFirst();
}

export async function getThread(db: Kysely<ReadModelTables>, s: SpaceRef, threadId: string) {
  return db
    .selectFrom('threads')
    .selectAll()
    .where('tenant_id', '=', s.tenantId)
    .where('space_id', '=', s.spaceId)
    .where('thread_id', '=', threadId)
    .executeTakeFirst();
}

export async function getBlock(
  db: Kysely<ReadModelTables>,
  s: SpaceRef,
  blockId: string,
): Promise<BlockRow | undefined> {
  return db
    .selectFrom('blocks')
    .selectAll()
    .where('tenant_id', '=', s.tenantId)
    .where('space_id', '=', s.spaceId)
    .where('block_id', '=', blockId)
    .executeTakeFirst();
}

export async function threadBlocks(db: Kysely<ReadModelTables>, s: SpaceRef, threadId: string) {
  return db
    .selectFrom('blocks')
    .selectAll()
    .where('tenant_id', '=', s.tenantId)
    .where('space_id', '=', s.spaceId)
    .where('thread_id', '=', threadId)
    .orderBy('turn_from')
    .execute();
}

/** The thread's unsealed messages, oldest first. */
export async function openTail(db: Kysely<ReadModelTables>, s: SpaceRef, threadId: string) {
  return db
    .selectFrom('messages as m')
    .innerJoin('turns as t', (join) =>
      join
        .onRef('t.tenant_id', '=', 'm.tenant_id')
        .onRef('t.space_id', '=', 'm.space_id')
        .onRef('t.turn_id', '=', 'm.turn_id'),
    )
    .select([
      'm.message_id',
      'm.turn_id',
      'm.role',
      'm.name',
      'm.content',
      'm.tool_calls',
      'm.occurred_at',
      'm.thread_turn',
    ])
    .where('t.tenant_id', '=', s.tenantId)
    .where('t.space_id', '=', s.spaceId)
    .where('t.thread_id', '=', threadId)
    .where('t.block_id', 'is', null)
    .orderBy('m.thread_turn')
    .orderBy('m.seq')
    .execute();
}

export async function jobCounts(db: Kysely<ReadModelTables>, s: SpaceRef) {
  const rows = await db
    .selectFrom('blocks')
    .select(['status', 'summary_status', 'extraction_status', 'graph_status'])
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', s.tenantId)
    .where('space_id', '=', s.spaceId)
    .groupBy(['status', 'summary_status', 'extraction_status', 'graph_status'])
    .execute();
  return rows.map((r) => ({ ...r, n: Number(r.n) }));
}

/** One memory event of the space; `statuses` narrows it (e.g. searchable ones only). */
export async function getEvent(
  db: Kysely<ReadModelTables>,
  s: SpaceRef,
  eventId: string,
  statuses?: MemoryEventStatus[],
) {
  let q = db
    .selectFrom('memory_events')
    .selectAll()
    .where('tenant_id', '=', s.tenantId)
    .where('space_id', '=', s.spaceId)
    .where('event_id', '=', eventId);
  if (statuses) q = q.where('status', 'in', statuses);
  return q.executeTakeFirst();
}

/** Several memory events of the space in the given statuses (unordered). */
export async function getEvents(
  db: Kysely<ReadModelTables>,
  s: SpaceRef,
  eventIds: readonly string[],
  statuses: MemoryEventStatus[],
) {
  if (eventIds.length === 0) return [];
  return db
    .selectFrom('memory_events')
    .selectAll()
    .where('tenant_id', '=', s.tenantId)
    .where('space_id', '=', s.spaceId)
    .where('event_id', 'in', [...eventIds])
    .where('status', 'in', statuses)
    .execute();
}
