import type { RecordMetadata, StoredRecord } from '@stratagate/domain';
import type { AnyDb } from '@stratagate/store';
import { sql, type RawBuilder } from 'kysely';
import { createAppendBatchFunction } from './postgres-log.append-batch.ts';

/** Table references and advisory-lock keys of one log schema. */
export interface LogTables {
  readonly schema: string;
  readonly records: RawBuilder<unknown>;
  readonly streams: RawBuilder<unknown>;
}

export function logTables(schema: string): LogTables {
  return {
    schema,
    records: sql.table(`${schema}.records`),
    streams: sql.table(`${schema}.streams`),
  };
}

// Advisory locks use the two-int form, namespaced by the schema, so several logs (and other modules'
// single-bigint advisory locks) never contend by accident.
export const spaceLockNamespace = (t: LogTables) => `stratagate.log:${t.schema}:space`;
export const spaceLock = (t: LogTables, tenantId: string, spaceId: string) =>
  sql`hashtext(${spaceLockNamespace(t)}), hashtext(${`${tenantId}/${spaceId}`})`;
const LOG_LOCK_NAMESPACE = 'stratagate.log';
export const positionLockKey = (t: LogTables) => `${t.schema}:positions`;
export const positionLock = (t: LogTables) =>
  sql`hashtext(${LOG_LOCK_NAMESPACE}), hashtext(${positionLockKey(t)})`;
const migrationLock = (t: LogTables) =>
  sql`hashtext(${LOG_LOCK_NAMESPACE}), hashtext(${`${t.schema}:migrate`})`;

/**
 * Idempotent migration. Runs under an advisory lock because concurrent `create ... if not exists`
 * of the same table can still fail on the catalog's unique indexes when two processes start at once.
 */
export async function migrateLog(db: AnyDb, t: LogTables): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${migrationLock(t)})`.execute(trx);
    await sql`create schema if not exists ${sql.id(t.schema)}`.execute(trx);
    await sql`
      create table if not exists ${t.records} (
        position        bigint generated always as identity primary key,
        -- Writing transaction; readAll only returns rows of transactions older than every running one.
        transaction_id  xid8 not null default pg_current_xact_id(),
        tenant_id       text not null,
        space_id        text not null,
        space_version   bigint not null,
        record_id       text not null unique,
        type            text not null,
        schema_version  integer not null,
        thread_id       text,
        -- Kept as text: the caller's UTC offset is part of the fact (MM-GEN-1).
        occurred_at     text not null,
        recorded_at     timestamptz not null default now(),
        idempotency_key text,
        metadata        jsonb not null,
        data            jsonb not null,
        constraint records_space_version_key unique (tenant_id, space_id, space_version)
      )`.execute(trx);
    // What ANALYZE gathers (ADR 0029, amended by 0030): only the columns the log's look-ups filter
    // on, from a sample of 3,000 rows. The payloads (jsonb, up to the body limit) are never
    // filtered on and were most of the cost: a full ANALYZE of 40,000 records took 360–490 ms on
    // PGlite, holding the session appends wait for; this one, 17–18 ms, with the same plan.
    await sql`alter table ${t.records} ${sql.raw(
      Object.entries(RECORD_STATISTICS)
        .map(([column, target]) => `alter column ${column} set statistics ${target}`)
        .join(', '),
    )}`.execute(trx);
    await sql`
      create unique index if not exists records_idempotency_key
        on ${t.records} (tenant_id, space_id, idempotency_key) where idempotency_key is not null
    `.execute(trx);
    await sql`
      create table if not exists ${t.streams} (
        tenant_id  text not null,
        space_id   text not null,
        version    bigint not null,
        updated_at timestamptz not null default now(),
        primary key (tenant_id, space_id)
      )`.execute(trx);
    await createAppendBatchFunction(trx, t, appendFunctionKeys(t));
  });
}

/**
 * Statistics target per column of the records table: 10 (a 3,000-row sample) for the key columns,
 * 0 (none) for the rest.
 */
export const RECORD_STATISTICS: Readonly<Record<string, number>> = {
  position: 10,
  tenant_id: 10,
  space_id: 10,
  space_version: 10,
  idempotency_key: 10,
  transaction_id: 0,
  record_id: 0,
  type: 0,
  schema_version: 0,
  thread_id: 0,
  occurred_at: 0,
  recorded_at: 0,
  metadata: 0,
  data: 0,
};

/** The unique index whose violation means "this idempotency key is already stored". */
export const IDEMPOTENCY_INDEX = 'records_idempotency_key';

export interface RecordRow {
  position: number | string;
  space_version: number | string;
  type: string;
  metadata: RecordMetadata;
  data: unknown;
  recorded_at: string;
}

/** Select list producing a RecordRow; recorded_at is rendered in SQL so no driver parser matters. */
const RECORDED_AT_FORMAT = 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"';
export const recordedAtColumn = sql`to_char(recorded_at at time zone 'UTC', ${sql.lit(RECORDED_AT_FORMAT)})`;

/** The same lock keys and format, for the append function's body (postgres-log.append-batch.ts). */
export const appendFunctionKeys = (t: LogTables) => ({
  lockNamespace: LOG_LOCK_NAMESPACE,
  spaceNamespace: spaceLockNamespace(t),
  positionKey: positionLockKey(t),
  recordedAtFormat: RECORDED_AT_FORMAT,
});
export const recordColumns = sql`position, space_version, type, metadata, data,
  ${recordedAtColumn} as recorded_at`;

export const toStoredRecord = (row: RecordRow): StoredRecord => ({
  type: row.type,
  data: row.data,
  metadata: row.metadata,
  // int8 arrives as string unless a parser is installed; positions fit a JS number for centuries.
  position: Number(row.position),
  spaceVersion: Number(row.space_version),
  recordedAt: row.recorded_at,
});
