import { sql, type Kysely } from 'kysely';
import type { RawLayer, SpaceRef } from '@stratagate/domain';
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

/** A block row without its raw layers (L3–L5 texts, the bulk of a row). */
export type BlockMeta = Omit<BlockRow, RawLayer>;

const BLOCK_META_COLUMNS = [
  'tenant_id',
  'space_id',
  'block_id',
  'thread_id',
  'sequence',
  'turn_from',
  'turn_to',
  'space_turn_to',
  'sealed_at',
  'status',
  'tokens_l3',
  'tokens_l4',
  'tokens_l5',
  'title',
  'tags',
  'summary',
  'key_points',
  'should_extract',
  'model',
  'summary_status',
  'summary_attempts',
  'summary_cycle',
  'summary_next_retry_at',
  'summary_last_error',
  'extraction_status',
  'ready_position',
  'anchor_position',
  'anchor_level',
  'last_lifted_at',
  'last_lifted_by',
  'extraction_attempts',
  'extraction_cycle',
  'extraction_next_retry_at',
  'extraction_last_error',
  'event_count',
  'graph_status',
  'graph_attempts',
  'graph_cycle',
  'graph_next_retry_at',
  'graph_last_error',
  'applied_position',
] as const satisfies readonly (keyof BlockMeta)[];
// Every column but the layers: a column added to BlockRow and not listed fails to compile here.
type Unlisted = Exclude<keyof BlockMeta, (typeof BLOCK_META_COLUMNS)[number]>;
const everyColumnListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everyColumnListed;

/** The thread's blocks in order, without their raw layers (`blockLayers` reads those needed). */
export async function threadBlocks(
  db: Kysely<ReadModelTables>,
  s: SpaceRef,
  threadId: string,
): Promise<BlockMeta[]> {
  return db
    .selectFrom('blocks')
    .select(BLOCK_META_COLUMNS)
    .where('tenant_id', '=', s.tenantId)
    .where('space_id', '=', s.spaceId)
    .where('thread_id', '=', threadId)
    .orderBy('turn_from')
    .execute();
}

/** One raw layer of each block asked for, by block id, in one statement. */
export async function blockLayers(
  db: Kysely<ReadModelTables>,
  s: SpaceRef,
  wanted: readonly { blockId: string; layer: RawLayer }[],
): Promise<Map<string, string>> {
  if (wanted.length === 0) return new Map();
  const of = (layer: RawLayer) => wanted.filter((w) => w.layer === layer).map((w) => w.blockId);
  const rows = await db
    .selectFrom('blocks')
    .select([
      'block_id',
      sql<string>`case when block_id = any(${of('l3')}::text[]) then l3
        when block_id = any(${of('l4')}::text[]) then l4 else l5 end`.as('text'),
    ])
    .where('tenant_id', '=', s.tenantId)
    .where('space_id', '=', s.spaceId)
    .where(
      'block_id',
      'in',
      wanted.map((w) => w.blockId),
    )
    .execute();
  return new Map(rows.map((r) => [r.block_id, r.text]));
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
