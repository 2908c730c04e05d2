import { sql, type Kysely } from 'kysely';
import type { DecodedRecord } from '@stratagate/domain';
import { assertSchemaName, type AnyDb, type ReadModelTables } from '@stratagate/store';
import { completeThrough, type HandleControl } from './projection.ts';
import { indexMessages, reindexMessages, type IndexedMessage } from './search.projection.ts';

/**
 * The raw-search indexing lane (ADR 0014). Indexing a sealed block's messages writes about 25
 * postings per message and was most of the projector's database time; the seal's transaction now
 * only queues the block, and the lane indexes queued blocks in transactions of its own, on its own
 * connection, side by side with the projection of the next batches. Replay is unchanged: the
 * queue is part of the read model, written by the seal, emptied by the lane, so a rebuild and the
 * live version converge on the same rows. The read model counts as applied up to the position
 * before the oldest queued seal (`appliedThrough`).
 */

type Rm = Kysely<ReadModelTables>;
type Meta = DecodedRecord['meta'];

/** Blocks per lane transaction: about 24 messages and 600 postings each. */
export const MESSAGE_INDEX_SLICE = 32;

/** Queues sealed blocks for the lane, in the seals' transaction (idempotent). */
export async function queueMessageIndex(
  rm: Rm,
  blocks: readonly { meta: Meta; blockId: string }[],
): Promise<void> {
  if (blocks.length === 0) return;
  await rm
    .insertInto('message_index_queue')
    .values(
      blocks.map(({ meta, blockId }) => ({
        tenant_id: meta.metadata.tenantId,
        space_id: meta.metadata.spaceId,
        block_id: blockId,
        position: meta.position,
        space_version: meta.spaceVersion,
      })),
    )
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/**
 * Indexes up to `limit` queued blocks, oldest seal first, and takes them off the queue, in one
 * transaction. Lanes of several projector processes take turns (a transaction-scoped advisory
 * lock per schema), so two never upsert the same term statistics in opposite orders. Returns the
 * number of blocks taken off the queue: 0 once it is empty.
 */
export async function drainMessageIndex(
  db: AnyDb,
  schema: string,
  limit = MESSAGE_INDEX_SLICE,
  held?: (ms: number) => void,
  control?: HandleControl,
): Promise<number> {
  assertSchemaName(schema);
  let heldSince = 0;
  const taken = await db.transaction().execute(async (trx) => {
    heldSince = performance.now();
    await sql`select pg_advisory_xact_lock(hashtext('stratagate.message_index'), hashtext(${schema}))`.execute(
      trx,
    );
    const rm = (trx as Kysely<ReadModelTables>).withSchema(schema);
    // The space of the oldest seal first, with every block it has queued, then the next space
    // by its oldest seal, up to `limit` blocks; each space's blocks in seal order. One indexing
    // call per space then covers several blocks: a frequent term's chunk is rewritten once per
    // call, not once per block, which after a burst over many spaces was most of the lane's cost.
    // The oldest seal is still indexed first, so the applied position moves as before.
    const queued = (
      await sql<{ tenant_id: string; space_id: string; block_id: string }>`
        select tenant_id, space_id, block_id from (
          select q.*, min(position) over (partition by tenant_id, space_id) as space_first
          from ${sql.id(schema, 'message_index_queue')} as q
        ) as q
        order by space_first, position
        limit ${limit}`.execute(trx)
    ).rows;
    if (queued.length === 0) return 0;
    const queuedRows = sql`(select * from jsonb_to_recordset(${JSON.stringify(
      queued.map((q, ord) => ({ ...q, ord })),
    )}::jsonb) as q(tenant_id text, space_id text, block_id text, ord int))`;
    // The blocks in the order taken, each block's messages in thread order, as the seal listed
    // its turns.
    const messages = await sql<{
      tenant_id: string;
      space_id: string;
      block_id: string;
      message_id: string;
      thread_id: string;
      content: string;
      name: string | null;
      occurred_at: string;
    }>`
      select q.tenant_id, q.space_id, q.block_id, m.message_id, m.thread_id, m.content, m.name,
        m.occurred_at
      from ${queuedRows} as q
      join ${sql.id(schema, 'turns')} as t
        on t.tenant_id = q.tenant_id and t.space_id = q.space_id and t.block_id = q.block_id
      join ${sql.id(schema, 'messages')} as m
        on m.tenant_id = t.tenant_id and m.space_id = t.space_id and m.turn_id = t.turn_id
      order by q.ord, m.thread_turn, m.seq`.execute(trx);
    // The thread's message before each block: the raw-search context of its first message, and
    // itself a sealed message (of an earlier block) whose reply is now sealed: it is indexed
    // again with that reply as context, so it needs its own previous message too.
    const before = await sql<{
      tenant_id: string;
      space_id: string;
      block_id: string;
      message_id: string;
      thread_id: string;
      content: string;
      name: string | null;
      occurred_at: string;
      own_block_id: string | null;
      previous: string | null;
    }>`
      select q.tenant_id, q.space_id, q.block_id, p.message_id, p.thread_id, p.content, p.name,
        p.occurred_at, p.own_block_id, pp.content as previous
      from ${queuedRows} as q
      join ${sql.id(schema, 'blocks')} as b
        on b.tenant_id = q.tenant_id and b.space_id = q.space_id and b.block_id = q.block_id
      cross join lateral (
        select m.message_id, m.thread_id, m.content, m.name, m.occurred_at, m.thread_turn, m.seq,
          t.block_id as own_block_id
        from ${sql.id(schema, 'messages')} as m
        join ${sql.id(schema, 'turns')} as t
          on t.tenant_id = m.tenant_id and t.space_id = m.space_id and t.turn_id = m.turn_id
        where m.tenant_id = b.tenant_id and m.space_id = b.space_id and m.thread_id = b.thread_id
          and m.thread_turn < b.turn_from
        order by m.thread_turn desc, m.seq desc
        limit 1
      ) as p
      left join lateral (
        select m.content from ${sql.id(schema, 'messages')} as m
        where m.tenant_id = b.tenant_id and m.space_id = b.space_id and m.thread_id = b.thread_id
          and (m.thread_turn < p.thread_turn or (m.thread_turn = p.thread_turn and m.seq < p.seq))
        order by m.thread_turn desc, m.seq desc
        limit 1
      ) as pp on true`.execute(trx);
    const key = (r: { tenant_id: string; space_id: string; block_id: string }) =>
      JSON.stringify([r.tenant_id, r.space_id, r.block_id]);
    const beforeOf = new Map(before.rows.map((r) => [key(r), r]));
    // What one indexing call takes: the blocks of a space together, or, when the slice may stop
    // for a waiting caller, one block each (ADR 0023). Either way in the order of `messages`, so
    // documents are numbered in the same sequence.
    const units: {
      tenantId: string;
      spaceId: string;
      blocks: { tenant_id: string; space_id: string; block_id: string }[];
      docs: IndexedMessage[];
      /** Messages before the unit's blocks, indexed again with their reply as context. */
      replied: IndexedMessage[];
    }[] = [];
    const unitOf = new Map<string, (typeof units)[number]>();
    type Previous = { block: string; content: string; doc: IndexedMessage };
    let previous = null as Previous | null;
    for (const m of messages.rows) {
      const block = key(m);
      const first = previous?.block !== block;
      const prior = first ? beforeOf.get(block) : undefined;
      const context = first ? (prior?.content ?? null) : previous!.content;
      const unitKey = control ? block : JSON.stringify([m.tenant_id, m.space_id]);
      let unit = unitOf.get(unitKey);
      if (!unit) {
        unit = { tenantId: m.tenant_id, spaceId: m.space_id, blocks: [], docs: [], replied: [] };
        unitOf.set(unitKey, unit);
        units.push(unit);
      }
      if (unit.blocks.at(-1)?.block_id !== m.block_id) {
        unit.blocks.push({ tenant_id: m.tenant_id, space_id: m.space_id, block_id: m.block_id });
      }
      const doc: IndexedMessage = {
        messageId: m.message_id,
        threadId: m.thread_id,
        blockId: m.block_id,
        content: m.content,
        speaker: m.name,
        previous: context,
        createdAt: m.occurred_at,
      };
      unit.docs.push(doc);
      // A message's reply in the same block is its context from the start; a block's last
      // message gets its reply when the thread's next block is indexed (below), whether that
      // happens in this slice or a later one, so the index goes through the same states.
      if (!first) previous!.doc.next = m.content;
      if (prior?.own_block_id) {
        unit.replied.push({
          messageId: prior.message_id,
          threadId: prior.thread_id,
          blockId: prior.own_block_id,
          content: prior.content,
          speaker: prior.name,
          previous: prior.previous,
          next: m.content,
          createdAt: prior.occurred_at,
        });
      }
      previous = { block, content: m.content, doc };
    }
    let done = 0;
    for (const unit of units) {
      // At least one unit per slice, so the lane always moves.
      if (done > 0 && control?.shouldYield()) break;
      const space = { tenantId: unit.tenantId, spaceId: unit.spaceId };
      await indexMessages(rm, schema, space, unit.docs);
      // After the unit's own documents: a replied message may be the last of a block in it.
      await reindexMessages(rm, schema, space, unit.replied);
      done++;
    }
    // Off the queue: the blocks indexed, and queued blocks without messages (nothing to index),
    // unless the slice stopped early (they stay for the next one).
    const finished = done === units.length ? queued : units.slice(0, done).flatMap((u) => u.blocks);
    await sql`
      delete from ${sql.id(schema, 'message_index_queue')} as d
      using (select * from jsonb_to_recordset(${JSON.stringify(finished)}::jsonb)
        as q(tenant_id text, space_id text, block_id text)) as q
      where d.tenant_id = q.tenant_id and d.space_id = q.space_id and d.block_id = q.block_id`.execute(
      trx,
    );
    return finished.length;
  });
  held?.(performance.now() - heldSince);
  return taken;
}

/**
 * Sealed blocks waiting for the lane (of one space when given), and the log position and space
 * version of the oldest seal (null when none is queued).
 */
export async function messageIndexQueued(
  db: AnyDb,
  schema: string,
  space?: { tenantId: string; spaceId: string },
): Promise<{ items: number; oldestPosition: number | null; oldestSpaceVersion: number | null }> {
  assertSchemaName(schema);
  let query = (db as Kysely<ReadModelTables>)
    .withSchema(schema)
    .selectFrom('message_index_queue')
    .select((eb) => [
      eb.fn.countAll<number>().as('items'),
      eb.fn.min('position').as('position'),
      eb.fn.min('space_version').as('version'),
    ]);
  if (space) {
    query = query.where('tenant_id', '=', space.tenantId).where('space_id', '=', space.spaceId);
  }
  const row = await query.executeTakeFirst();
  const orNull = (v: unknown) => (v == null ? null : Number(v));
  return {
    items: Number(row?.items ?? 0),
    oldestPosition: orNull(row?.position),
    oldestSpaceVersion: orNull(row?.version),
  };
}

/**
 * The global log position through which the read model is complete: the checkpoint, or the
 * position before the oldest seal still queued for raw-search indexing.
 */
export async function appliedThrough(
  db: AnyDb,
  schema: string,
  checkpoint: number,
): Promise<number> {
  return completeThrough(checkpoint, (await messageIndexQueued(db, schema)).oldestPosition);
}

/** As `appliedThrough`, for one space in space versions (logs ordered per space: Kafka). */
export async function spaceAppliedThrough(
  db: AnyDb,
  schema: string,
  space: { tenantId: string; spaceId: string },
  version: number,
): Promise<number> {
  return completeThrough(version, (await messageIndexQueued(db, schema, space)).oldestSpaceVersion);
}
