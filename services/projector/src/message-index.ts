import { sql, type Kysely } from 'kysely';
import { memoTokenizer, type DecodedRecord } from '@stratagate/domain';
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
 * Characters of message text one slice indexes of one space, beyond its first message (ADR
 * 0043). Indexing costs time linear in the text, so this bounds how long one huge turn holds the
 * lane: its block is indexed over several slices, each committed, and the other spaces' queued
 * blocks go in each of them.
 */
export const MESSAGE_INDEX_SLICE_CHARS = 200_000;

type QueueKey = { tenant_id: string; space_id: string; block_id: string };

/** What one indexing call takes: a space's blocks (or one block), with its new documents. */
interface Unit {
  tenantId: string;
  spaceId: string;
  blocks: QueueKey[];
  /** The blocks' messages not indexed yet (an earlier slice may have indexed the first ones). */
  docs: IndexedMessage[];
  /** Messages before the unit's blocks, indexed again with their reply as context. */
  replied: IndexedMessage[];
}

const queueKey = (r: QueueKey) => JSON.stringify([r.tenant_id, r.space_id, r.block_id]);

/**
 * Tokens of the texts a cut-short block's next slice needs again: its last indexed message (the
 * context of the next one) and that next message. Carried from one slice to the next so a huge
 * message is tokenized once, not once as itself and again as its neighbours' context.
 */
const carried = new Map<string, readonly string[]>();

/** Lets the event loop turn: requests are read between pieces of a long tokenization. */
const pause = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Indexes up to `limit` queued blocks, oldest seal first, and takes them off the queue, in one
 * transaction. Lanes of several projector processes take turns (a transaction-scoped advisory
 * lock per schema), so two never upsert the same term statistics in opposite orders. A slice
 * indexes at most `maxChars` of a space's message text beyond its first message (ADR 0043): a
 * block with more is indexed over several slices, each going on after the documents already written (they
 * are skipped, and their text is not read again), and is taken off the queue with its last one.
 * Text is tokenized with pauses, so a long message does not hold the event loop. Returns the
 * number of blocks taken off the queue, or 1 when the slice only moved on within a block; 0 once
 * the queue is empty.
 */
export async function drainMessageIndex(
  db: AnyDb,
  schema: string,
  limit = MESSAGE_INDEX_SLICE,
  held?: (ms: number) => void,
  control?: HandleControl,
  maxChars = MESSAGE_INDEX_SLICE_CHARS,
): Promise<number> {
  assertSchemaName(schema);
  let heldSince = 0;
  const moved = await db.transaction().execute(async (trx) => {
    heldSince = performance.now();
    await sql`select pg_advisory_xact_lock(hashtext('stratagate.message_index'), hashtext(${schema}))`.execute(
      trx,
    );
    const { queued, units } = await planSlice(trx, schema, limit, control !== undefined);
    if (queued.length === 0) return 0;
    // The pieces this slice writes: each unit up to `maxChars` of its text (at least one
    // document), so a huge block takes its share and the other spaces' blocks behind it still go
    // in the same slice. A space whose unit is cut short writes nothing more in this slice: its
    // later blocks follow the rest of that one, in seal order.
    const pieces: { unit: Unit; docs: IndexedMessage[]; complete: boolean }[] = [];
    const cut = new Set<string>();
    for (const unit of units) {
      const spaceKey = JSON.stringify([unit.tenantId, unit.spaceId]);
      if (cut.has(spaceKey)) continue;
      let n = 0;
      let chars = 0;
      while (
        n < unit.docs.length &&
        (n === 0 || chars + unit.docs[n]!.content.length <= maxChars)
      ) {
        chars += unit.docs[n]!.content.length;
        n++;
      }
      const complete = n === unit.docs.length;
      pieces.push({ unit, docs: unit.docs.slice(0, n), complete });
      if (!complete) cut.add(spaceKey);
    }
    const rm = (trx as Kysely<ReadModelTables>).withSchema(schema);
    const tokens = memoTokenizer(carried);
    const keep = new Set<string>();
    const finished: QueueKey[] = [];
    let written = 0;
    let partial = false;
    for (const piece of pieces) {
      // At least one piece per slice, so the lane always moves.
      if (written > 0 && control?.shouldYield()) break;
      const replied = piece.complete ? piece.unit.replied : [];
      for (const m of [...piece.docs, ...replied]) {
        for (const text of [m.content, m.previous, m.next]) {
          if (text) await tokens.prepare(text, pause);
        }
      }
      const space = { tenantId: piece.unit.tenantId, spaceId: piece.unit.spaceId };
      await indexMessages(rm, schema, space, piece.docs, tokens);
      written++;
      if (!piece.complete) {
        partial = true;
        const last = piece.docs.at(-1)!;
        keep.add(last.content);
        if (last.next) keep.add(last.next);
        continue;
      }
      // After the unit's own documents: a replied message may be the last of a block in it.
      await reindexMessages(rm, schema, space, replied, tokens);
      finished.push(...piece.unit.blocks);
    }
    for (const text of carried.keys()) if (!keep.has(text)) carried.delete(text);
    // Off the queue: the blocks indexed, and, once every unit is, queued blocks without
    // messages (nothing to index).
    if (written === units.length && !partial) finished.splice(0, finished.length, ...queued);
    await sql`
      delete from ${sql.id(schema, 'message_index_queue')} as d
      using (select * from jsonb_to_recordset(${JSON.stringify(finished)}::jsonb)
        as q(tenant_id text, space_id text, block_id text)) as q
      where d.tenant_id = q.tenant_id and d.space_id = q.space_id and d.block_id = q.block_id`.execute(
      trx,
    );
    return finished.length > 0 ? finished.length : partial ? 1 : 0;
  });
  held?.(performance.now() - heldSince);
  return moved;
}

/**
 * Reads what a slice would index: up to `limit` queued blocks and their messages not yet
 * indexed, in units of one indexing call each (one block each when `perBlock`).
 */
async function planSlice(
  db: AnyDb,
  schema: string,
  limit: number,
  perBlock: boolean,
): Promise<{ queued: QueueKey[]; units: Unit[] }> {
  // The space of the oldest seal first, with every block it has queued, then the next space
  // by its oldest seal, up to `limit` blocks; each space's blocks in seal order. One indexing
  // call per space then covers several blocks: a frequent term's chunk is rewritten once per
  // call, not once per block, which after a burst over many spaces was most of the lane's cost.
  // The oldest seal is still indexed first, so the applied position moves as before.
  const queued = (
    await sql<QueueKey>`
      select tenant_id, space_id, block_id from (
        select q.*, min(position) over (partition by tenant_id, space_id) as space_first
        from ${sql.id(schema, 'message_index_queue')} as q
      ) as q
      order by space_first, position
      limit ${limit}`.execute(db)
  ).rows;
  if (queued.length === 0) return { queued, units: [] };
  const queuedRows = sql`(select * from jsonb_to_recordset(${JSON.stringify(
    queued.map((q, ord) => ({ ...q, ord })),
  )}::jsonb) as q(tenant_id text, space_id text, block_id text, ord int))`;
  // The blocks in the order taken, each block's messages in thread order, as the seal listed
  // its turns. A message an earlier slice indexed is not indexed again, and its text is read
  // only where it is still needed: as the context of the next message, or, for a block's first
  // message, as the reply of the message before the block.
  const messages = await sql<{
    tenant_id: string;
    space_id: string;
    block_id: string;
    message_id: string;
    thread_id: string;
    content: string | null;
    name: string | null;
    occurred_at: string;
    indexed: boolean;
  }>`
    select tenant_id, space_id, block_id, message_id, thread_id, name, occurred_at, indexed,
      case when indexed and not first and coalesce(lead(indexed) over w, true) then null
        else content end as content
    from (
      select q.ord, q.tenant_id, q.space_id, q.block_id, m.message_id, m.thread_id, m.content,
        m.name, m.occurred_at, m.thread_turn, m.seq,
        row_number() over (partition by q.ord order by m.thread_turn, m.seq) = 1 as first,
        exists (
          select 1 from ${sql.id(schema, 'search_docs')} as d
          where d.tenant_id = m.tenant_id and d.space_id = m.space_id and d.doc_kind = 'message'
            and d.doc_id = m.message_id
        ) as indexed
      from ${queuedRows} as q
      join ${sql.id(schema, 'turns')} as t
        on t.tenant_id = q.tenant_id and t.space_id = q.space_id and t.block_id = q.block_id
      join ${sql.id(schema, 'messages')} as m
        on m.tenant_id = t.tenant_id and m.space_id = t.space_id and m.turn_id = t.turn_id
    ) as x
    window w as (partition by ord order by thread_turn, seq)
    order by ord, thread_turn, seq`.execute(db);
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
    ) as pp on true`.execute(db);
  const beforeOf = new Map(before.rows.map((r) => [queueKey(r), r]));
  // What one indexing call takes: the blocks of a space together, or, when the slice may stop
  // for a waiting caller, one block each (ADR 0023). Either way in the order of `messages`, so
  // documents are numbered in the same sequence.
  const units: Unit[] = [];
  const unitOf = new Map<string, Unit>();
  type Previous = { block: string; content: string | null; doc: IndexedMessage | null };
  let previous = null as Previous | null;
  for (const m of messages.rows) {
    const block = queueKey(m);
    const first = previous?.block !== block;
    const prior = first ? beforeOf.get(block) : undefined;
    const context = first ? (prior?.content ?? null) : previous!.content;
    const unitKey = perBlock ? block : JSON.stringify([m.tenant_id, m.space_id]);
    let unit = unitOf.get(unitKey);
    if (!unit) {
      unit = { tenantId: m.tenant_id, spaceId: m.space_id, blocks: [], docs: [], replied: [] };
      unitOf.set(unitKey, unit);
      units.push(unit);
    }
    if (unit.blocks.at(-1)?.block_id !== m.block_id) {
      unit.blocks.push({ tenant_id: m.tenant_id, space_id: m.space_id, block_id: m.block_id });
    }
    const doc: IndexedMessage | null = m.indexed
      ? null
      : {
          messageId: m.message_id,
          threadId: m.thread_id,
          blockId: m.block_id,
          content: m.content ?? '',
          speaker: m.name,
          previous: context,
          createdAt: m.occurred_at,
        };
    if (doc) unit.docs.push(doc);
    // A message's reply in the same block is its context from the start; a block's last
    // message gets its reply when the thread's next block is indexed (below), whether that
    // happens in this slice or a later one, so the index goes through the same states.
    if (!first && previous!.doc) previous!.doc.next = m.content;
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
  return { queued, units };
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
 * The log position through which the read model is complete: the checkpoint, or the position
 * before the oldest seal still queued for raw-search indexing. Given a space, only that space's
 * queued seals count (ADR 0043): the checkpoint covers every space, and a space's reads never
 * touch another space's index, so another space's unindexed block does not hold it back. The
 * answer is then only meaningful for that space's own records.
 */
export async function appliedThrough(
  db: AnyDb,
  schema: string,
  checkpoint: number,
  space?: { tenantId: string; spaceId: string },
): Promise<number> {
  return completeThrough(checkpoint, (await messageIndexQueued(db, schema, space)).oldestPosition);
}

/** The log position of each space's oldest seal still queued for raw-search indexing. */
export async function messageIndexHolds(
  db: AnyDb,
  schema: string,
): Promise<{ tenantId: string; spaceId: string; oldestPosition: number }[]> {
  assertSchemaName(schema);
  const rows = await (db as Kysely<ReadModelTables>)
    .withSchema(schema)
    .selectFrom('message_index_queue')
    .select((eb) => ['tenant_id', 'space_id', eb.fn.min('position').as('position')])
    .groupBy(['tenant_id', 'space_id'])
    .execute();
  return rows.map((r) => ({
    tenantId: r.tenant_id,
    spaceId: r.space_id,
    oldestPosition: Number(r.position),
  }));
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
