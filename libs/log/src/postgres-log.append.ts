import type { NewRecord, SpaceRef, StoredRecord } from '@stratagate/domain';
import type { AnyDb } from '@stratagate/store';
import { sql } from 'kysely';
import { assertAppendable, idempotencyKeys } from './append-validation.ts';
import { WrongExpectedVersionError, type AppendOptions, type AppendResult } from './message-log.ts';
import {
  IDEMPOTENCY_INDEX,
  positionLock,
  recordColumns,
  spaceLock,
  toStoredRecord,
  type LogTables,
  type RecordRow,
} from './postgres-log.schema.ts';

/** Test seam only: lets a spec hold an append's transaction open after its rows are inserted. */
export interface AppendHooks {
  beforeCommit?: () => Promise<void>;
}

// 11 parameters per row; Postgres allows 65535 per statement.
const ROWS_PER_INSERT = 2000;

/**
 * One append, in one transaction on one connection:
 *
 * 1. `pg_advisory_xact_lock` on the space serialises appends to that space until commit, so the
 *    version read, the idempotency check and the expected-version check are exact. An advisory lock
 *    rather than a row lock on `streams`, because a row lock would assign the transaction id here,
 *    outside step 2.
 * 2. A short global critical section (session advisory lock) covers the statement that both assigns
 *    the transaction id and draws the positions. Hence positions are ordered like transaction ids,
 *    which is what makes `transaction_id < pg_snapshot_xmin(...)` in readAll a safe prefix
 *    (see postgres-log.ts). Without it, concurrent multi-row inserts interleave their positions,
 *    and the stress spec's tailer misses rows on every run. Commits stay outside the section.
 * 3. The `streams` row is updated after the section; it is the fast spaceVersion() answer.
 */
export async function appendRecords(
  db: AnyDb,
  t: LogTables,
  space: SpaceRef,
  records: NewRecord[],
  options: AppendOptions = {},
  hooks: AppendHooks = {},
): Promise<AppendResult> {
  assertAppendable(space, records);
  const keys = idempotencyKeys(records);
  try {
    return await db.connection().execute(async (conn) => {
      let holdsPositionLock = false;
      try {
        return await conn.transaction().execute(async (trx): Promise<AppendResult> => {
          const lockSpace = spaceLock(t, space.tenantId, space.spaceId);
          await sql`select pg_advisory_xact_lock(${lockSpace})`.execute(trx);
          const current = await readSpaceVersion(trx, t, space);
          // Duplicates first: a retried append whose first attempt landed must answer `duplicate`,
          // not a version mismatch caused by its own first attempt.
          const existing = await findFirstStored(trx, t, space, keys);
          if (existing) return { status: 'duplicate', existing, spaceVersion: current };
          const { expectedVersion } = options;
          if (expectedVersion !== undefined && expectedVersion !== current) {
            throw new WrongExpectedVersionError(space, expectedVersion, current);
          }
          if (records.length === 0)
            return { status: 'appended', records: [], spaceVersion: current };

          await sql`select pg_advisory_lock(${positionLock(t)})`.execute(trx);
          holdsPositionLock = true;
          const stored = await insertRecords(trx, t, records, current);
          const next = current + records.length;
          const { rows } = await sql<{ version: number | string | null }>`
            with bumped as (
              insert into ${t.streams} as s (tenant_id, space_id, version)
              values (${space.tenantId}, ${space.spaceId}, ${next})
              on conflict (tenant_id, space_id)
                do update set version = excluded.version, updated_at = now()
                where s.version = ${current}
              returning version
            )
            select (select version from bumped) as version, pg_advisory_unlock(${positionLock(t)})
          `.execute(trx);
          holdsPositionLock = false;
          // Cannot happen while every writer takes the space lock; fail loudly if one does not.
          if (Number(rows[0]?.version) !== next) throw new Error('space version moved under lock');
          await hooks.beforeCommit?.();
          return { status: 'appended', records: stored, spaceVersion: next };
        });
      } finally {
        // A failed statement inside the section leaves the session lock held past the rollback.
        if (holdsPositionLock)
          await sql`select pg_advisory_unlock(${positionLock(t)})`.execute(conn);
      }
    });
  } catch (error) {
    // Unreachable through this adapter (the space lock serialises the check), but another writer
    // of the same table could race us: answer as the duplicate it is.
    if (!isUniqueViolation(error, IDEMPOTENCY_INDEX)) throw error;
    const existing = await findFirstStored(db, t, space, keys);
    if (!existing) throw error;
    return { status: 'duplicate', existing, spaceVersion: await readSpaceVersion(db, t, space) };
  }
}

export async function readSpaceVersion(db: AnyDb, t: LogTables, space: SpaceRef): Promise<number> {
  const { rows } = await sql<{ version: number | string }>`
    select version from ${t.streams} where tenant_id = ${space.tenantId} and space_id = ${space.spaceId}
  `.execute(db);
  return rows[0] ? Number(rows[0].version) : 0;
}

/** The stored record holding the first of `keys` (in the given order) already in the space. */
export async function findFirstStored(
  db: AnyDb,
  t: LogTables,
  space: SpaceRef,
  keys: readonly string[],
): Promise<StoredRecord | null> {
  if (keys.length === 0) return null;
  const { rows } = await sql<RecordRow & { idempotency_key: string }>`
    select ${recordColumns}, idempotency_key from ${t.records}
    where tenant_id = ${space.tenantId} and space_id = ${space.spaceId}
      and idempotency_key in (${sql.join(keys)})
  `.execute(db);
  const byKey = new Map(rows.map((row) => [row.idempotency_key, row]));
  for (const key of keys) {
    const row = byKey.get(key);
    if (row) return toStoredRecord(row);
  }
  return null;
}

/** Multi-row INSERTs; rows are numbered in append order, so positions ascend with versions. */
async function insertRecords(
  trx: AnyDb,
  t: LogTables,
  records: NewRecord[],
  current: number,
): Promise<StoredRecord[]> {
  const stored: StoredRecord[] = [];
  for (let start = 0; start < records.length; start += ROWS_PER_INSERT) {
    const chunk = records.slice(start, start + ROWS_PER_INSERT);
    const values = chunk.map(({ type, data, metadata: m }, i) => {
      const version = current + start + i + 1;
      return sql`(${m.tenantId}, ${m.spaceId}, ${version}, ${m.recordId}, ${type}, ${m.schemaVersion},
        ${m.threadId ?? null}, ${m.occurredAt}, ${m.idempotencyKey ?? null},
        ${JSON.stringify(m)}::jsonb, ${JSON.stringify(data ?? null)}::jsonb)`;
    });
    const { rows } = await sql<RecordRow>`
      insert into ${t.records} (tenant_id, space_id, space_version, record_id, type, schema_version,
        thread_id, occurred_at, idempotency_key, metadata, data)
      values ${sql.join(values)}
      returning ${recordColumns}
    `.execute(trx);
    stored.push(...rows.map(toStoredRecord).sort((a, b) => a.spaceVersion - b.spaceVersion));
  }
  return stored;
}

function isUniqueViolation(error: unknown, constraint: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { code?: unknown; constraint?: unknown };
  return e.code === '23505' && e.constraint === constraint;
}
