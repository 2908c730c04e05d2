import type { Kysely } from 'kysely';
import type { SpaceRef } from '@stratagate/domain';
import { inSpace, sameSpace, type ReadModelTables } from '@stratagate/store';

/** The messages of `messageIds` the space holds, in the order asked for. */
export async function messagesById(
  db: Kysely<ReadModelTables>,
  space: SpaceRef,
  messageIds: readonly string[],
) {
  if (messageIds.length === 0) return [];
  const rows = await db
    .selectFrom('messages')
    .select(['message_id', 'role', 'name', 'content', 'occurred_at', 'thread_id', 'thread_turn'])
    .where(inSpace(space))
    .where('message_id', 'in', [...messageIds])
    .execute();
  const byId = new Map(rows.map((r) => [r.message_id, r]));
  return messageIds.flatMap((id) => {
    const m = byId.get(id);
    return m ? [m] : [];
  });
}

/**
 * Every message of the blocks that hold any of `messageIds` (sealed messages), in one statement,
 * in block and conversation order: raw search's hits with their neighbours.
 */
export async function blockMessagesOf(
  db: Kysely<ReadModelTables>,
  space: SpaceRef,
  messageIds: readonly string[],
) {
  if (messageIds.length === 0) return [];
  return db
    .selectFrom('messages as m')
    .innerJoin('turns as t', (j) => j.on(sameSpace('t', 'm', ['t.turn_id', 'm.turn_id'])))
    .innerJoin('blocks as b', (j) => j.on(sameSpace('b', 't', ['b.block_id', 't.block_id'])))
    .select([
      't.block_id',
      'b.turn_from',
      'b.turn_to',
      'm.message_id',
      'm.thread_id',
      'm.role',
      'm.name',
      'm.content',
      'm.occurred_at',
    ])
    .where(inSpace(space, 't'))
    .where('t.block_id', 'in', (sub) =>
      sub
        .selectFrom('messages as hm')
        .innerJoin('turns as ht', (j) => j.on(sameSpace('ht', 'hm', ['ht.turn_id', 'hm.turn_id'])))
        .select('ht.block_id')
        .where(inSpace(space, 'hm'))
        .where('hm.message_id', 'in', [...messageIds]),
    )
    .orderBy('t.block_id')
    .orderBy('m.thread_turn')
    .orderBy('m.seq')
    .execute();
}
export type BlockMessageRow = Awaited<ReturnType<typeof blockMessagesOf>>[number];
