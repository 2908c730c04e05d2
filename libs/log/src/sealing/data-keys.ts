import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { SealingSubject, SpaceRef } from '@stratagate/domain';
import { migrateUnderLock, type AnyDb } from '@stratagate/store';
import type { DataKey } from './envelope.ts';

/** What an erasure takes away (ADR 0046). */
export type ErasureTarget =
  | { scope: 'space' }
  | { scope: 'thread'; threadId: string }
  | { scope: 'memory_event'; eventId: string };

/** An erasure on its way: noted before it starts, completed once carried through. */
export interface PendingErasure {
  erasureId: string;
  space: SpaceRef;
  target: ErasureTarget;
  requestedBy: string;
}

const targetId = (t: ErasureTarget): string | null =>
  t.scope === 'thread' ? t.threadId : t.scope === 'memory_event' ? t.eventId : null;

/** A subject's key for an append: its key, or null when the subject was erased for good. */
export type EnsuredKey = DataKey | null;

/**
 * The data keys that seal records (ADR 0046), beside the log: `keys.data_keys`, one live key per
 * (space, subject). A space's or a thread's key is deleted when it is erased, and the next record
 * of that space or thread gets a new one. A memory event's key is erased for good: its row stays
 * without the key, so nothing sealed for that event later (a graph job in flight) can be read.
 * `keys.block_keys` binds each block to the key its thread had when it was sealed: what is derived
 * from the block later (summaries, events, graph operations) is sealed under that key, so a job
 * that finishes after its thread was erased writes something nobody can read.
 *
 * Every method takes the database to run on: the store's own, or a transaction on it (the Kafka
 * projector opens records inside its batch's transaction).
 */
export class DataKeyStore {
  constructor(readonly db: AnyDb) {}

  async migrate(): Promise<void> {
    await migrateUnderLock(this.db, 'stratagate.keys', 'migrate', async (trx) => {
      await sql`create schema if not exists keys`.execute(trx);
      await sql`create table if not exists keys.data_keys (
        key_id text primary key,
        tenant_id text not null,
        space_id text not null,
        subject text not null,
        -- An event's key names the key of the record that brought the event: a thread's erasure
        -- takes the events of that thread with it.
        parent_key_id text,
        -- Null once erased (memory events only; other subjects' rows are deleted).
        key bytea,
        created_at timestamptz not null default now(),
        erased_at timestamptz,
        unique (tenant_id, space_id, subject)
      )`.execute(trx);
      await sql`create index if not exists data_keys_by_parent on keys.data_keys (parent_key_id)
        where parent_key_id is not null`.execute(trx);
      // Erasures asked for and not yet carried through (a crash in between resumes them).
      await sql`create table if not exists keys.erasures (
        erasure_id text primary key,
        tenant_id text not null,
        space_id text not null,
        scope text not null,
        target_id text,
        requested_by text not null,
        requested_at timestamptz not null default now(),
        completed_at timestamptz
      )`.execute(trx);
      await sql`create table if not exists keys.block_keys (
        tenant_id text not null,
        space_id text not null,
        block_id text not null,
        key_id text not null,
        primary key (tenant_id, space_id, block_id)
      )`.execute(trx);
    });
  }

  /**
   * The live key of each subject of one space, created where there is none. A memory event erased
   * before maps to null. `parent`: the key id an event's new key hangs from.
   */
  async ensure(
    space: SpaceRef,
    wanted: readonly { subject: SealingSubject; parent: string | null }[],
    db: AnyDb = this.db,
  ): Promise<Map<SealingSubject, EnsuredKey>> {
    const unique = [...new Map(wanted.map((w) => [w.subject, w])).values()];
    const out = new Map<SealingSubject, EnsuredKey>();
    if (unique.length === 0) return out;
    for (let attempt = 0; attempt < 3 && out.size < unique.length; attempt++) {
      const missing = unique.filter((w) => !out.has(w.subject));
      const { rows } = await sql<{ subject: SealingSubject; key_id: string; key: string | null }>`
        with input (subject, key_id, parent, key) as (
          select * from unnest(
            ${missing.map((w) => w.subject)}::text[],
            ${missing.map(() => randomUUID())}::text[],
            ${missing.map((w) => w.parent)}::text[],
            ${missing.map(() => randomBytes(32).toString('hex'))}::text[])
        ),
        inserted as (
          insert into keys.data_keys (key_id, tenant_id, space_id, subject, parent_key_id, key)
          select key_id, ${space.tenantId}, ${space.spaceId}, subject, parent, decode(key, 'hex')
          from input
          on conflict (tenant_id, space_id, subject) do nothing
          returning subject, key_id, encode(key, 'hex') as key
        )
        select subject, key_id, key from inserted
        union all
        select d.subject, d.key_id, encode(d.key, 'hex') from keys.data_keys d
        where d.tenant_id = ${space.tenantId} and d.space_id = ${space.spaceId}
          and d.subject in (select subject from input)
          and d.subject not in (select subject from inserted)`.execute(db);
      // A row another writer committed after this statement began shows on the next attempt.
      for (const r of rows) {
        out.set(
          r.subject,
          r.key === null ? null : { id: r.key_id, key: Buffer.from(r.key, 'hex') },
        );
      }
    }
    if (out.size < unique.length) throw new Error('data keys could not be created');
    return out;
  }

  /** Existing keys by id; erased ones are absent. */
  async lookup(ids: readonly string[], db: AnyDb = this.db): Promise<Map<string, Buffer>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Map();
    const { rows } = await sql<{ key_id: string; key: string }>`
      select key_id, encode(key, 'hex') as key from keys.data_keys
      where key_id = any(${unique}::text[]) and key is not null`.execute(db);
    return new Map(rows.map((r) => [r.key_id, Buffer.from(r.key, 'hex')]));
  }

  /** The key each block was sealed under (blocks sealed before any binding are absent). */
  async blockKeys(
    space: SpaceRef,
    blockIds: readonly string[],
    db: AnyDb = this.db,
  ): Promise<Map<string, string>> {
    const unique = [...new Set(blockIds)];
    if (unique.length === 0) return new Map();
    const { rows } = await sql<{ block_id: string; key_id: string }>`
      select block_id, key_id from keys.block_keys
      where tenant_id = ${space.tenantId} and space_id = ${space.spaceId}
        and block_id = any(${unique}::text[])`.execute(db);
    return new Map(rows.map((r) => [r.block_id, r.key_id]));
  }

  async bindBlocks(
    space: SpaceRef,
    bindings: readonly { blockId: string; keyId: string }[],
    db: AnyDb = this.db,
  ): Promise<void> {
    if (bindings.length === 0) return;
    await sql`
      insert into keys.block_keys (tenant_id, space_id, block_id, key_id)
      select ${space.tenantId}, ${space.spaceId}, b, k
      from unnest(${bindings.map((b) => b.blockId)}::text[], ${bindings.map((b) => b.keyId)}::text[])
        as t(b, k)
      on conflict do nothing`.execute(db);
  }

  /** Notes an erasure before it starts, so that one interrupted is carried through later. */
  async beginErasure(erasure: PendingErasure): Promise<void> {
    await sql`
      insert into keys.erasures (erasure_id, tenant_id, space_id, scope, target_id, requested_by)
      values (${erasure.erasureId}, ${erasure.space.tenantId}, ${erasure.space.spaceId},
        ${erasure.target.scope}, ${targetId(erasure.target)}, ${erasure.requestedBy})
      on conflict (erasure_id) do nothing`.execute(this.db);
  }

  async completeErasure(erasureId: string): Promise<void> {
    await sql`update keys.erasures set completed_at = now()
      where erasure_id = ${erasureId} and completed_at is null`.execute(this.db);
  }

  /** Erasures begun and not completed, oldest first. */
  async pendingErasures(): Promise<PendingErasure[]> {
    const { rows } = await sql<{
      erasure_id: string;
      tenant_id: string;
      space_id: string;
      scope: ErasureTarget['scope'];
      target_id: string | null;
      requested_by: string;
    }>`
      select erasure_id, tenant_id, space_id, scope, target_id, requested_by from keys.erasures
      where completed_at is null order by requested_at, erasure_id`.execute(this.db);
    return rows.map((r) => ({
      erasureId: r.erasure_id,
      space: { tenantId: r.tenant_id, spaceId: r.space_id },
      target:
        r.scope === 'thread'
          ? { scope: 'thread', threadId: r.target_id! }
          : r.scope === 'memory_event'
            ? { scope: 'memory_event', eventId: r.target_id! }
            : { scope: 'space' },
      requestedBy: r.requested_by,
    }));
  }

  /**
   * Deletes the keys `target` names, in one transaction: the space's or the thread's keys, and the
   * keys of the memory events they brought (kept as rows without a key: erased for good). Returns
   * how many keys went. Then rewrites the table, so no deleted key stays in its files.
   */
  async erase(space: SpaceRef, target: ErasureTarget): Promise<number> {
    const t = space.tenantId;
    const s = space.spaceId;
    const erased = await this.db.transaction().execute(async (trx) => {
      if (target.scope === 'memory_event') {
        const { rows } = await sql<{ n: number }>`
          with erased as (
            insert into keys.data_keys as d (key_id, tenant_id, space_id, subject, key, erased_at)
            values (${randomUUID()}, ${t}, ${s}, ${`event:${target.eventId}`}, null, now())
            on conflict (tenant_id, space_id, subject) do update
              set key = null, erased_at = coalesce(d.erased_at, now())
            returning 1
          ) select count(*)::int as n from erased`.execute(trx);
        return Number(rows[0]?.n ?? 0);
      }
      const owners =
        target.scope === 'space'
          ? sql`tenant_id = ${t} and space_id = ${s} and subject not like 'event:%'`
          : sql`tenant_id = ${t} and space_id = ${s} and subject = ${`thread:${target.threadId}`}`;
      const { rows: gone } = await sql<{ key_id: string }>`
        delete from keys.data_keys where ${owners} returning key_id`.execute(trx);
      const ids = gone.map((r) => r.key_id);
      const events =
        target.scope === 'space'
          ? sql`tenant_id = ${t} and space_id = ${s} and subject like 'event:%'`
          : sql`parent_key_id = any(${ids}::text[])`;
      const { rows: tombstoned } = await sql<{ key_id: string }>`
        update keys.data_keys set key = null, erased_at = now()
        where ${events} and key is not null returning key_id`.execute(trx);
      return ids.length + tombstoned.length;
    });
    // Deleted rows stay in the table's pages until they are rewritten.
    await sql`vacuum full keys.data_keys`.execute(this.db);
    return erased;
  }
}
