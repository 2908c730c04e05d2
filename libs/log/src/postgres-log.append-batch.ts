import type { NewRecord, SpaceRef } from '@stratagate/domain';
import type { AnyDb } from '@stratagate/store';
import { sql, type RawBuilder } from 'kysely';
import type { appendFunctionKeys, LogTables, RecordRow } from './postgres-log.schema.ts';

type AppendFunctionKeys = ReturnType<typeof appendFunctionKeys>;

/**
 * The group commit's whole transaction as one server-side function (ADR 0015): one round trip
 * per batch instead of nine (begin, space locks, versions, idempotency keys, position lock,
 * insert, stream versions, unlock, commit). Called as a single statement in autocommit, so the
 * statement is the transaction: its space locks (`pg_advisory_xact_lock`) are held until it
 * commits, exactly as in the multi-statement form, and a VOLATILE PL/pgSQL function takes a fresh
 * snapshot for every statement, so the versions and idempotency keys it reads after the locks
 * are granted include the previous holder's commit.
 *
 * Each append keeps its own outcome, decided in arrival order as if the appends had run one
 * after another: a duplicate (an idempotency key stored already, or appended earlier in the same
 * batch), a wrong expected version, or appended. The rows of the appended ones are inserted in
 * one statement inside the global position section (session advisory lock, released before the
 * commit), which keeps position order equal to transaction-id order (postgres-log.ts).
 *
 * The name carries a version: a process of an older release keeps calling the function it knows
 * while a newer one creates its own beside it.
 */
export const APPEND_BATCH_FUNCTION = 'append_batch_v1';

/** One append of a batch, in arrival order; its `n` records follow in `BatchRecordInput[]`. */
export interface BatchAppendInput {
  t: string;
  s: string;
  /** Expected space version, or null for none. */
  e: number | null;
  n: number;
}

/** One record to insert, in the order of the appends. */
export interface BatchRecordInput {
  t: string;
  s: string;
  id: string;
  type: string;
  sv: number;
  th: string | null;
  oc: string;
  k: string | null;
  m: unknown;
  d: unknown;
}

export type BatchPlan =
  | { kind: 'append'; version: number }
  | {
      kind: 'duplicate';
      version: number;
      /** The stored record, when the key was stored before this batch. */
      existing?: RecordRow;
      /** The index (in the batch's records) of the record an earlier append of it inserted. */
      batchRecord?: number;
    }
  | { kind: 'conflict'; expected: number; actual: number };

export interface BatchOutcome {
  plans: BatchPlan[];
  /** [record id, position, recorded_at] of every inserted row, in position order. */
  inserted: [string, number | string, string][];
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Creates (or replaces) the function in the log's schema; `migrateLog` calls it under its lock,
 * with the lock keys and the timestamp format the rest of the adapter uses (`appendFunctionKeys`).
 */
export async function createAppendBatchFunction(
  db: AnyDb,
  t: LogTables,
  keys: AppendFunctionKeys,
): Promise<void> {
  // The body is a string: the schema and lock keys go in as checked identifiers and literals.
  if (!IDENTIFIER.test(t.schema)) throw new Error(`invalid log schema name "${t.schema}"`);
  const s = `"${t.schema}"`;
  const literal = (v: string) => `'${v.replace(/'/g, "''")}'`;
  const lockNs = literal(keys.lockNamespace);
  const spaceNs = literal(keys.spaceNamespace);
  const positionKey = literal(keys.positionKey);
  const recordedAt = `to_char(recorded_at at time zone 'UTC', ${literal(keys.recordedAtFormat)})`;
  await sql
    .raw(
      `
create or replace function ${s}.${APPEND_BATCH_FUNCTION}(p_appends jsonb, p_records jsonb)
returns jsonb language plpgsql volatile as $fn$
declare
  v_space text;
  v_versions jsonb;
  v_running jsonb;
  v_existing jsonb;
  v_in_batch jsonb := '{}'::jsonb;
  v_plans jsonb := '[]'::jsonb;
  v_plan jsonb;
  v_append jsonb;
  v_idx int[] := '{}';
  v_ver bigint[] := '{}';
  v_inserted jsonb;
  v_off int := 0;
  v_n int;
  v_cur bigint;
  v_key text;
  v_bumped bigint;
  v_changed bigint;
begin
  -- Space locks in key order (collation C, the order of JavaScript's string comparison for these
  -- keys), so two batches locking overlapping sets cannot deadlock.
  for v_space in
    select k from (
      select distinct (a->>'t') || '/' || (a->>'s') as k from jsonb_array_elements(p_appends) a
    ) u order by k collate "C"
  loop
    perform pg_advisory_xact_lock(hashtext(${spaceNs}), hashtext(v_space));
  end loop;

  select coalesce(jsonb_object_agg(st.tenant_id || '/' || st.space_id, st.version), '{}'::jsonb)
    into v_versions
    from ${s}.streams st
    where (st.tenant_id, st.space_id) in
      (select a->>'t', a->>'s' from jsonb_array_elements(p_appends) a);

  select coalesce(jsonb_object_agg(
      r.tenant_id || '/' || r.space_id || '|' || r.idempotency_key,
      jsonb_build_object('position', r.position, 'space_version', r.space_version,
        'type', r.type, 'metadata', r.metadata, 'data', r.data,
        'recorded_at', ${recordedAt})), '{}'::jsonb)
    into v_existing
    from ${s}.records r
    where r.idempotency_key is not null
      and (r.tenant_id, r.space_id, r.idempotency_key) in
        (select x->>'t', x->>'s', x->>'k' from jsonb_array_elements(p_records) x
         where x->>'k' is not null);

  -- Every append's outcome, in arrival order.
  v_running := v_versions;
  for i in 0 .. jsonb_array_length(p_appends) - 1 loop
    v_append := p_appends -> i;
    v_n := (v_append->>'n')::int;
    v_space := (v_append->>'t') || '/' || (v_append->>'s');
    v_cur := coalesce((v_running->>v_space)::bigint, 0);
    v_plan := null;
    -- Duplicates first: a retried append whose first attempt landed answers duplicate, not a
    -- version mismatch caused by its own first attempt.
    for j in v_off .. v_off + v_n - 1 loop
      v_key := p_records -> j ->> 'k';
      continue when v_key is null;
      v_key := v_space || '|' || v_key;
      if v_existing ? v_key then
        v_plan := jsonb_build_object('kind', 'duplicate', 'existing', v_existing -> v_key,
          'version', v_cur);
        exit;
      elsif v_in_batch ? v_key then
        v_plan := jsonb_build_object('kind', 'duplicate', 'batchRecord', v_in_batch -> v_key,
          'version', v_cur);
        exit;
      end if;
    end loop;
    if v_plan is null and v_append->>'e' is not null and (v_append->>'e')::bigint <> v_cur then
      v_plan := jsonb_build_object('kind', 'conflict', 'expected', (v_append->>'e')::bigint,
        'actual', v_cur);
    end if;
    if v_plan is null then
      for j in 0 .. v_n - 1 loop
        v_idx := v_idx || (v_off + j);
        v_ver := v_ver || (v_cur + j + 1);
        v_key := p_records -> (v_off + j) ->> 'k';
        if v_key is not null then
          v_in_batch := v_in_batch || jsonb_build_object(v_space || '|' || v_key, v_off + j);
        end if;
      end loop;
      v_running := v_running || jsonb_build_object(v_space, v_cur + v_n);
      v_plan := jsonb_build_object('kind', 'append', 'version', v_cur + v_n);
    end if;
    v_plans := v_plans || jsonb_build_array(v_plan);
    v_off := v_off + v_n;
  end loop;

  if cardinality(v_idx) > 0 then
    -- The global position section: the insert assigns this transaction's id and draws the
    -- positions; the session lock is released before the commit (postgres-log.append.ts).
    perform pg_advisory_lock(hashtext(${lockNs}), hashtext(${positionKey}));
    with ins as (
      insert into ${s}.records (tenant_id, space_id, space_version, record_id, type,
        schema_version, thread_id, occurred_at, idempotency_key, metadata, data)
      select x.r->>'t', x.r->>'s', u.ver, x.r->>'id', x.r->>'type', (x.r->>'sv')::int,
        x.r->>'th', x.r->>'oc', x.r->>'k', x.r->'m', x.r->'d'
      from unnest(v_idx, v_ver) with ordinality as u(idx, ver, ord)
      cross join lateral (select p_records -> u.idx as r) x
      order by u.ord
      returning record_id, position, recorded_at
    )
    select jsonb_agg(jsonb_build_array(record_id, position, ${recordedAt}) order by position)
      into v_inserted from ins;

    with sp as (
      select distinct a->>'t' as t, a->>'s' as s from jsonb_array_elements(p_appends) a
    ),
    v as (
      select sp.t, sp.s, (v_running->>(sp.t || '/' || sp.s))::bigint as version,
        coalesce((v_versions->>(sp.t || '/' || sp.s))::bigint, 0) as previous
      from sp
      where (v_running->>(sp.t || '/' || sp.s))::bigint
        is distinct from coalesce((v_versions->>(sp.t || '/' || sp.s))::bigint, 0)
        and v_running ? (sp.t || '/' || sp.s)
    ),
    bumped as (
      insert into ${s}.streams as st (tenant_id, space_id, version)
      select v.t, v.s, v.version from v
      on conflict (tenant_id, space_id) do update set version = excluded.version, updated_at = now()
        where st.version = (select v.previous from v where v.t = st.tenant_id and v.s = st.space_id)
      returning 1
    )
    select (select count(*) from bumped), (select count(*) from v) into v_bumped, v_changed;
    -- Cannot happen while every writer takes the space locks; fail loudly if one does not.
    if v_bumped <> v_changed then
      raise exception 'space version moved under lock';
    end if;
    perform pg_advisory_unlock(hashtext(${lockNs}), hashtext(${positionKey}));
  end if;

  return jsonb_build_object('plans', v_plans, 'inserted', coalesce(v_inserted, '[]'::jsonb));
end
$fn$`,
    )
    .execute(db);
}

/** The function's input for appends in arrival order. */
export function batchInput(
  batch: readonly { space: SpaceRef; records: readonly NewRecord[]; expectedVersion?: number }[],
): { appends: BatchAppendInput[]; records: BatchRecordInput[] } {
  const appends: BatchAppendInput[] = [];
  const records: BatchRecordInput[] = [];
  for (const p of batch) {
    appends.push({
      t: p.space.tenantId,
      s: p.space.spaceId,
      e: p.expectedVersion ?? null,
      n: p.records.length,
    });
    for (const { type, data, metadata: m } of p.records) {
      records.push({
        t: m.tenantId,
        s: m.spaceId,
        id: m.recordId,
        type,
        sv: m.schemaVersion,
        th: m.threadId ?? null,
        oc: m.occurredAt,
        k: m.idempotencyKey ?? null,
        m,
        d: data ?? null,
      });
    }
  }
  return { appends, records };
}

/** The call: one statement, run outside any explicit transaction. */
export function callAppendBatch(
  t: LogTables,
  appends: BatchAppendInput[],
  records: BatchRecordInput[],
): RawBuilder<{ result: BatchOutcome }> {
  return sql<{ result: BatchOutcome }>`select ${sql.id(t.schema, APPEND_BATCH_FUNCTION)}(
    ${JSON.stringify(appends)}::jsonb, ${JSON.stringify(records)}::jsonb) as result`;
}
