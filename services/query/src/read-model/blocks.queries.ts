import { sql, type Kysely } from 'kysely';
import type { RawLayer, SpaceRef } from '@stratagate/domain';
import { inSpace, sameSpace, type BlockRow, type ReadModelTables } from '@stratagate/store';

export async function getBlock(
  db: Kysely<ReadModelTables>,
  space: SpaceRef,
  blockId: string,
): Promise<BlockRow | undefined> {
  return db
    .selectFrom('blocks')
    .selectAll()
    .where(inSpace(space))
    .where('block_id', '=', blockId)
    .executeTakeFirst();
}

/** A block row without its raw layers (L3–L5 texts, the bulk of a row). */
export type BlockMeta = Omit<BlockRow, RawLayer>;

export const BLOCK_META_COLUMNS = [
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

/** One raw layer of each block asked for, by block id, in one statement. */
export async function blockLayers(
  db: Kysely<ReadModelTables>,
  space: SpaceRef,
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
    .where(inSpace(space))
    .where(
      'block_id',
      'in',
      wanted.map((w) => w.blockId),
    )
    .execute();
  return new Map(rows.map((r) => [r.block_id, r.text]));
}

/** The ids of the last `limit` messages of a sealed block, oldest first. */
export async function lastBlockMessageIds(
  db: Kysely<ReadModelTables>,
  space: SpaceRef,
  blockId: string,
  limit: number,
): Promise<string[]> {
  const rows = await db
    .selectFrom('messages as m')
    .innerJoin('turns as t', (j) => j.on(sameSpace('t', 'm', ['t.turn_id', 'm.turn_id'])))
    .select('m.message_id')
    .where(inSpace(space, 't'))
    .where('t.block_id', '=', blockId)
    .orderBy('m.thread_turn', 'desc')
    .orderBy('m.seq', 'desc')
    .limit(limit)
    .execute();
  return rows.map((m) => m.message_id).reverse();
}

/** A page of the space's blocks with a failed derivation job, oldest first; one row more tells a next page. */
export async function blocksWithFailedJobs(
  db: Kysely<ReadModelTables>,
  space: SpaceRef,
  page: { limit: number; offset: number },
) {
  return db
    .selectFrom('blocks')
    .select([
      'block_id',
      'thread_id',
      'turn_from',
      'turn_to',
      'summary_status',
      'summary_attempts',
      'summary_next_retry_at',
      'summary_last_error',
      'extraction_status',
      'extraction_attempts',
      'extraction_next_retry_at',
      'extraction_last_error',
      'graph_status',
      'graph_attempts',
      'graph_next_retry_at',
      'graph_last_error',
    ])
    .where(inSpace(space))
    .where((eb) =>
      eb.or([
        eb('summary_status', '=', 'failed'),
        eb('extraction_status', '=', 'failed'),
        eb('graph_status', '=', 'failed'),
      ]),
    )
    .orderBy('thread_id')
    .orderBy('sequence')
    .limit(page.limit + 1)
    .offset(page.offset)
    .execute();
}
