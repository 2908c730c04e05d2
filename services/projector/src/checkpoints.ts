import { sql } from 'kysely';
import type { AnyDb } from '@stratagate/store';

export type CheckpointOutcome = 'ok' | 'idempotent' | 'mismatch' | 'ahead';

export async function readCheckpoint(db: AnyDb, schema: string, name: string): Promise<number> {
  const row = await db
    .withSchema(schema)
    .selectFrom('checkpoints')
    .select('position')
    .where('name', '=', name)
    .executeTakeFirst();
  return row ? Number(row.position) : 0;
}

/**
 * Compare-and-set: moves the checkpoint from `expected` to `next` inside the projection's
 * transaction. Another runner that got there first makes this `idempotent` (already at next),
 * `ahead` (further on) or `mismatch` (somewhere else); only `ok` may commit.
 */
export async function storeCheckpoint(
  trx: AnyDb,
  schema: string,
  name: string,
  expected: number,
  next: number,
): Promise<CheckpointOutcome> {
  const result = await sql<{ position: number }>`
    insert into ${sql.id(schema, 'checkpoints')} (name, position) values (${name}, ${next})
    on conflict (name) do update set position = ${next}
      where ${sql.id(schema, 'checkpoints', 'position')} = ${expected}
    returning position`.execute(trx);
  if (result.rows.length > 0) return 'ok';
  const current = await readCheckpoint(trx, schema, name);
  if (current === next) return 'idempotent';
  if (current > next) return 'ahead';
  return 'mismatch';
}
