import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { AnyDb, BlockRow, ReadModelTables } from '@stratagate/store';

export const MAX_ATTEMPTS = 3;

/** MM-JOB-3: after failure k the next try waits 1 s·2^(k−1); after the 3rd it is terminal. */
export function nextRetryAt(now: Date, attempt: number): string | null {
  if (attempt >= MAX_ATTEMPTS) return null;
  return new Date(now.getTime() + 1000 * 2 ** (attempt - 1)).toISOString();
}

export type DueBlock = Pick<
  BlockRow,
  | 'tenant_id'
  | 'space_id'
  | 'block_id'
  | 'thread_id'
  | 'summary_attempts'
  | 'summary_cycle'
  // The log position of the record that last changed the block: its trace is the job's parent.
  | 'applied_position'
>;

/** A space's key columns: due queries take one to look at that space only. */
export interface SpaceRow {
  tenant_id: string;
  space_id: string;
}

/**
 * Blocks whose summary is pending, or failed with attempts left and the backoff elapsed; of one
 * space when `space` is given.
 */
export async function dueSummaryJobs(
  db: AnyDb,
  schema: string,
  now: Date,
  limit: number,
  space?: SpaceRow,
) {
  const rm = (db as Kysely<ReadModelTables>).withSchema(schema);
  return rm
    .selectFrom('blocks')
    .$if(space !== undefined, (q) =>
      q.where('tenant_id', '=', space!.tenant_id).where('space_id', '=', space!.space_id),
    )
    .select([
      'tenant_id',
      'space_id',
      'block_id',
      'thread_id',
      'summary_attempts',
      'summary_cycle',
      'applied_position',
    ])
    .where((eb) =>
      eb.or([
        eb('summary_status', '=', 'pending'),
        eb.and([
          eb('summary_status', '=', 'failed'),
          eb('summary_attempts', '<', MAX_ATTEMPTS),
          eb('summary_next_retry_at', '<=', now),
        ]),
      ]),
    )
    .orderBy('sequence')
    .limit(limit)
    .execute() as Promise<DueBlock[]>;
}

/** The block's messages in the order they were said, for the caller to select from. */
export function blockMessagesInOrder(
  db: AnyDb,
  schema: string,
  block: Pick<BlockRow, 'tenant_id' | 'space_id' | 'block_id'>,
) {
  const rm = (db as Kysely<ReadModelTables>).withSchema(schema);
  return rm
    .selectFrom('messages as m')
    .innerJoin('turns as t', (join) =>
      join
        .onRef('t.tenant_id', '=', 'm.tenant_id')
        .onRef('t.space_id', '=', 'm.space_id')
        .onRef('t.turn_id', '=', 'm.turn_id'),
    )
    .where('t.tenant_id', '=', block.tenant_id)
    .where('t.space_id', '=', block.space_id)
    .where('t.block_id', '=', block.block_id)
    .orderBy('m.thread_turn')
    .orderBy('m.seq');
}

export async function blockMessages(db: AnyDb, schema: string, block: DueBlock) {
  return blockMessagesInOrder(db, schema, block)
    .select(['m.message_id', 'm.role', 'm.name', 'm.content', 'm.tool_calls', 'm.occurred_at'])
    .execute();
}

export async function previousSummary(db: AnyDb, schema: string, block: DueBlock) {
  const row = await sql<{ summary: string | null }>`
    select p.summary from ${sql.id(schema, 'blocks')} p
    join ${sql.id(schema, 'blocks')} b
      on b.tenant_id = p.tenant_id and b.space_id = p.space_id and b.thread_id = p.thread_id
    where b.tenant_id = ${block.tenant_id} and b.space_id = ${block.space_id}
      and b.block_id = ${block.block_id} and p.turn_to < b.turn_from and p.summary is not null
    order by p.turn_to desc limit 1`.execute(db);
  return row.rows[0]?.summary ?? null;
}
