import type { Kysely } from 'kysely';
import type { SpaceRef } from '@stratagate/domain';
import { inSpace, sameSpace, type ReadModelTables } from '@stratagate/store';
import { BLOCK_META_COLUMNS, type BlockMeta } from './blocks.queries.ts';

export async function getThread(db: Kysely<ReadModelTables>, space: SpaceRef, threadId: string) {
  return db
    .selectFrom('threads')
    .selectAll()
    .where(inSpace(space))
    .where('thread_id', '=', threadId)
    .executeTakeFirst();
}

/** The thread's blocks in order, without their raw layers (`blockLayers` reads those needed). */
export async function threadBlocks(
  db: Kysely<ReadModelTables>,
  space: SpaceRef,
  threadId: string,
): Promise<BlockMeta[]> {
  return db
    .selectFrom('blocks')
    .select(BLOCK_META_COLUMNS)
    .where(inSpace(space))
    .where('thread_id', '=', threadId)
    .orderBy('turn_from')
    .execute();
}

/** The ids of the thread's blocks. */
export async function threadBlockIds(
  db: Kysely<ReadModelTables>,
  space: SpaceRef,
  threadId: string,
): Promise<string[]> {
  const rows = await db
    .selectFrom('blocks')
    .select('block_id')
    .where(inSpace(space))
    .where('thread_id', '=', threadId)
    .execute();
  return rows.map((b) => b.block_id);
}

/** The thread's unsealed messages, oldest first. */
export async function openTail(db: Kysely<ReadModelTables>, space: SpaceRef, threadId: string) {
  return db
    .selectFrom('messages as m')
    .innerJoin('turns as t', (join) => join.on(sameSpace('t', 'm', ['t.turn_id', 'm.turn_id'])))
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
    .where(inSpace(space, 't'))
    .where('t.thread_id', '=', threadId)
    .where('t.block_id', 'is', null)
    .orderBy('m.thread_turn')
    .orderBy('m.seq')
    .execute();
}
export type TailMessage = Awaited<ReturnType<typeof openTail>>[number];

/** A page of the space's threads, by id; one row more tells a next page. */
export async function listThreads(
  db: Kysely<ReadModelTables>,
  space: SpaceRef,
  page: { limit: number; offset: number },
) {
  return db
    .selectFrom('threads')
    .selectAll()
    .where(inSpace(space))
    .orderBy('thread_id')
    .limit(page.limit + 1)
    .offset(page.offset)
    .execute();
}

/** The threads of `threadIds` the space holds. */
export async function threadsById(
  db: Kysely<ReadModelTables>,
  space: SpaceRef,
  threadIds: readonly string[],
) {
  if (threadIds.length === 0) return [];
  return db
    .selectFrom('threads')
    .selectAll()
    .where(inSpace(space))
    .where('thread_id', 'in', [...threadIds])
    .execute();
}

/** The space's newest ready blocks (across its threads), newest seal first. */
export async function newestReadyBlocks(
  db: Kysely<ReadModelTables>,
  space: SpaceRef,
  limit: number,
): Promise<BlockMeta[]> {
  return db
    .selectFrom('blocks')
    .select(BLOCK_META_COLUMNS)
    .where(inSpace(space))
    .where('status', '=', 'ready')
    .orderBy('space_turn_to', 'desc')
    .orderBy('block_id')
    .limit(limit)
    .execute();
}

/** How many blocks the space has, and in which threads. */
export async function spaceBlockThreads(db: Kysely<ReadModelTables>, space: SpaceRef) {
  const rows = await db
    .selectFrom('blocks')
    .select('thread_id')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(inSpace(space))
    .groupBy('thread_id')
    .orderBy('thread_id')
    .execute();
  return rows.map((r) => ({ threadId: r.thread_id, blocks: Number(r.n) }));
}
