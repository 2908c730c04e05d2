import type { NewRecord, SpaceRef, StoredRecord } from '@stratagate/domain';
import { migrateUnderLock, type AnyDb } from '@stratagate/store';
import { sql, type RawBuilder } from 'kysely';
import { recordColumns, toStoredRecord, type RecordRow } from '../postgres-log.schema.ts';

/**
 * The Postgres side table of the Kafka log: one row per record, written `pending` before the
 * produce and turned `acked` (with its partition and offset) once the broker acknowledged it.
 * Only acked rows are visible to readSpace, spaceVersion and findByIdempotencyKey. Pending rows are
 * always the highest versions of their space (every append first rolls them forward), so the top
 * row of a space says whether anything is pending. See docs/adr/0007-kafka-log-adapter.md.
 */
export interface KafkaIndexTables {
  readonly schema: string;
  readonly records: RawBuilder<unknown>;
  readonly topic: RawBuilder<unknown>;
}

export function kafkaIndexTables(schema: string): KafkaIndexTables {
  return { schema, records: sql.table(`${schema}.records`), topic: sql.table(`${schema}.topic`) };
}

/** Session-level advisory lock serialising the appends of one space across processes. */
export const spaceLockKey = (t: KafkaIndexTables, space: SpaceRef) =>
  sql`hashtext(${`stratagate.kafka-log:${t.schema}`}), hashtext(${`${space.tenantId}/${space.spaceId}`})`;

// 8 parameters per row; Postgres allows 65535 per statement.
const ROWS_PER_INSERT = 2000;

/** Idempotent; binds the schema to one topic so two logs never share (and corrupt) an index. */
export async function migrateKafkaIndex(
  db: AnyDb,
  t: KafkaIndexTables,
  topic: string,
): Promise<void> {
  await migrateUnderLock(db, 'stratagate.kafka-log', `${t.schema}:migrate`, async (trx) => {
    await sql`create schema if not exists ${sql.id(t.schema)}`.execute(trx);
    await sql`
      create table if not exists ${t.topic} (
        singleton boolean primary key default true check (singleton),
        topic     text not null
      )`.execute(trx);
    await sql`
      create table if not exists ${t.records} (
        tenant_id       text not null,
        space_id        text not null,
        space_version   bigint not null,
        -- Assigned when the append is decided and carried in the message, so every copy of a
        -- record on the topic has the same position. Increasing within a space, not global order.
        position        bigint generated always as identity unique,
        record_id       text not null unique,
        type            text not null,
        idempotency_key text,
        metadata        jsonb not null,
        data            jsonb not null,
        recorded_at     timestamptz not null default now(),
        state           text not null default 'pending' check (state in ('pending', 'acked')),
        kafka_partition integer,
        kafka_offset    bigint,
        primary key (tenant_id, space_id, space_version),
        check ((state = 'acked') = (kafka_offset is not null and kafka_partition is not null))
      )`.execute(trx);
    await sql`
      create unique index if not exists records_idempotency_key
        on ${t.records} (tenant_id, space_id, idempotency_key) where idempotency_key is not null
    `.execute(trx);
    await sql`
      create index if not exists records_pending on ${t.records} (tenant_id, space_id)
        where state = 'pending'`.execute(trx);
    await sql`insert into ${t.topic} (topic) values (${topic}) on conflict do nothing`.execute(trx);
    const { rows } = await sql<{ topic: string }>`select topic from ${t.topic}`.execute(trx);
    if (rows[0]?.topic !== topic) {
      throw new Error(
        `kafka log index "${t.schema}" belongs to topic "${rows[0]?.topic}", not "${topic}"`,
      );
    }
  });
}

export interface SpaceHead {
  /** Highest version in the index, pending or acked. */
  version: number;
  pending: boolean;
  /** The partition the space's records went to, once one was acknowledged. */
  partition: number | undefined;
}

export async function readSpaceHead(
  q: AnyDb,
  t: KafkaIndexTables,
  space: SpaceRef,
): Promise<SpaceHead> {
  const { rows } = await sql<{
    space_version: number | string | null;
    state: string | null;
    kafka_partition: number | null;
  }>`
    select top.space_version, top.state, first.kafka_partition
    from (select 1) one
    left join lateral (
      select space_version, state from ${t.records}
      where tenant_id = ${space.tenantId} and space_id = ${space.spaceId}
      order by space_version desc limit 1
    ) top on true
    left join ${t.records} first
      on first.tenant_id = ${space.tenantId} and first.space_id = ${space.spaceId}
      and first.space_version = 1`.execute(q);
  const row = rows[0];
  return {
    version: Number(row?.space_version ?? 0),
    pending: row?.state === 'pending',
    partition: row?.kafka_partition ?? undefined,
  };
}

/** Rows in append order, so positions ascend with versions. */
export async function insertPending(
  q: AnyDb,
  t: KafkaIndexTables,
  records: readonly NewRecord[],
  current: number,
): Promise<StoredRecord[]> {
  const insertChunks = async (trx: AnyDb) => {
    const stored: StoredRecord[] = [];
    for (let start = 0; start < records.length; start += ROWS_PER_INSERT) {
      const values = records.slice(start, start + ROWS_PER_INSERT).map((r, i) => {
        const m = r.metadata;
        return sql`(${m.tenantId}, ${m.spaceId}, ${current + start + i + 1}, ${m.recordId},
          ${r.type}, ${m.idempotencyKey ?? null}, ${JSON.stringify(m)}::jsonb,
          ${JSON.stringify(r.data ?? null)}::jsonb)`;
      });
      const { rows } = await sql<RecordRow>`
        insert into ${t.records} (tenant_id, space_id, space_version, record_id, type,
          idempotency_key, metadata, data)
        values ${sql.join(values)}
        returning ${recordColumns}`.execute(trx);
      stored.push(...rows.map(toStoredRecord).sort((a, b) => a.spaceVersion - b.spaceVersion));
    }
    return stored;
  };
  // One statement is atomic by itself; larger appends need the transaction.
  return records.length <= ROWS_PER_INSERT
    ? insertChunks(q)
    : q.transaction().execute(insertChunks);
}

export async function readPending(
  q: AnyDb,
  t: KafkaIndexTables,
  space: SpaceRef,
): Promise<StoredRecord[]> {
  const { rows } = await sql<RecordRow>`
    select ${recordColumns} from ${t.records}
    where tenant_id = ${space.tenantId} and space_id = ${space.spaceId} and state = 'pending'
    order by space_version`.execute(q);
  return rows.map(toStoredRecord);
}

/** Marks versions first..last acknowledged at consecutive offsets from baseOffset; returns how many. */
export async function markAcked(
  q: AnyDb,
  t: KafkaIndexTables,
  space: SpaceRef,
  range: { first: number; last: number },
  partition: number,
  baseOffset: number,
): Promise<number> {
  const { rows } = await sql<{ space_version: number }>`
    update ${t.records}
    set state = 'acked', kafka_partition = ${partition},
      kafka_offset = ${baseOffset}::bigint + (space_version - ${range.first}::bigint)
    where tenant_id = ${space.tenantId} and space_id = ${space.spaceId}
      and space_version between ${range.first} and ${range.last} and state = 'pending'
    returning space_version`.execute(q);
  return rows.length;
}

export async function deletePending(
  q: AnyDb,
  t: KafkaIndexTables,
  space: SpaceRef,
  range: { first: number; last: number },
): Promise<void> {
  await sql`
    delete from ${t.records}
    where tenant_id = ${space.tenantId} and space_id = ${space.spaceId}
      and space_version between ${range.first} and ${range.last} and state = 'pending'`.execute(q);
}

/** The acknowledged record holding the first of `keys` (in the given order), if any. */
export async function findFirstAcked(
  q: AnyDb,
  t: KafkaIndexTables,
  space: SpaceRef,
  keys: readonly string[],
): Promise<StoredRecord | null> {
  if (keys.length === 0) return null;
  const { rows } = await sql<RecordRow & { idempotency_key: string }>`
    select ${recordColumns}, idempotency_key from ${t.records}
    where tenant_id = ${space.tenantId} and space_id = ${space.spaceId} and state = 'acked'
      and idempotency_key in (${sql.join(keys)})`.execute(q);
  const byKey = new Map(rows.map((row) => [row.idempotency_key, row]));
  for (const key of keys) {
    const row = byKey.get(key);
    if (row) return toStoredRecord(row);
  }
  return null;
}

export async function readAcked(
  q: AnyDb,
  t: KafkaIndexTables,
  space: SpaceRef,
  afterVersion: number,
  limit: number,
): Promise<StoredRecord[]> {
  const { rows } = await sql<RecordRow>`
    select ${recordColumns} from ${t.records}
    where tenant_id = ${space.tenantId} and space_id = ${space.spaceId} and state = 'acked'
      and space_version > ${afterVersion}
    order by space_version limit ${limit}`.execute(q);
  return rows.map(toStoredRecord);
}

/** The acknowledged record of `space` at `position` (positions are unique in the index). */
export async function readAckedAt(
  q: AnyDb,
  t: KafkaIndexTables,
  space: SpaceRef,
  position: number,
): Promise<StoredRecord | null> {
  const { rows } = await sql<RecordRow>`
    select ${recordColumns} from ${t.records}
    where position = ${position} and state = 'acked'
      and tenant_id = ${space.tenantId} and space_id = ${space.spaceId}`.execute(q);
  return rows[0] ? toStoredRecord(rows[0]) : null;
}

export async function ackedVersion(
  q: AnyDb,
  t: KafkaIndexTables,
  space: SpaceRef,
): Promise<number> {
  const { rows } = await sql<{ version: number | string | null }>`
    select max(space_version) as version from ${t.records}
    where tenant_id = ${space.tenantId} and space_id = ${space.spaceId} and state = 'acked'
  `.execute(q);
  return Number(rows[0]?.version ?? 0);
}

export async function ackedHeadPosition(q: AnyDb, t: KafkaIndexTables): Promise<number> {
  const { rows } = await sql<{ position: number | string | null }>`
    select max(position) as position from ${t.records} where state = 'acked'`.execute(q);
  return Number(rows[0]?.position ?? 0);
}

export async function spacesWithPending(q: AnyDb, t: KafkaIndexTables): Promise<SpaceRef[]> {
  const { rows } = await sql<{ tenant_id: string; space_id: string }>`
    select distinct tenant_id, space_id from ${t.records} where state = 'pending'`.execute(q);
  return rows.map((r) => ({ tenantId: r.tenant_id, spaceId: r.space_id }));
}

/** Where the index says each record of a space went (diagnostics and tests). */
export async function readCoordinates(
  q: AnyDb,
  t: KafkaIndexTables,
  space: SpaceRef,
): Promise<{ spaceVersion: number; partition: number; offset: number }[]> {
  const { rows } = await sql<{
    space_version: number | string;
    kafka_partition: number;
    kafka_offset: number | string;
  }>`
    select space_version, kafka_partition, kafka_offset from ${t.records}
    where tenant_id = ${space.tenantId} and space_id = ${space.spaceId} and state = 'acked'
    order by space_version`.execute(q);
  return rows.map((r) => ({
    spaceVersion: Number(r.space_version),
    partition: r.kafka_partition,
    offset: Number(r.kafka_offset),
  }));
}
