import { sql } from 'kysely';
import type { AnyDb } from '../database.ts';
import { assertSchemaName } from '../read-model/migrate.ts';
import { CHUNK_SHIFT, ENTRY_BYTES, ENTRY_SQL, SEARCH_STATUS_CODES } from './packed-postings.ts';

/** The status codes as an SQL array literal (inlined: DDL takes no parameters). */
const statusArray = () =>
  sql`array[${sql.join(SEARCH_STATUS_CODES.map((c) => sql.lit(c)))}]::text[]`;

/**
 * Creates the search index tables in a read-model schema (idempotent; the schema must exist).
 *
 * Older schemas are brought up to date from what they hold, so a live read model needs no
 * rebuild: one built before the term statistics (`search_terms`), the documents' term vectors or
 * the postings' copy of their document's length and status gets them, and one that kept a row per
 * posting (a `search_postings` table) gets document numbers and packed postings (ADR 0017), after
 * which that table is dropped and `search_postings` is a view that decodes the packed postings.
 */
export async function migrateSearchIndex(db: AnyDb, schema: string): Promise<void> {
  assertSchemaName(schema);
  const s = sql.id(schema);
  const existing = await sql<{
    docs: boolean;
    vectors: boolean;
    terms: boolean;
    row_postings: boolean;
    posting_status: boolean;
  }>`
    select
      to_regclass(${`${schema}.search_docs`}) is not null as docs,
      exists (select 1 from information_schema.columns where table_schema = ${schema}
        and table_name = 'search_docs' and column_name = 'terms') as vectors,
      to_regclass(${`${schema}.search_terms`}) is not null as terms,
      exists (select 1 from pg_class where oid = to_regclass(${`${schema}.search_postings`})
        and relkind = 'r') as row_postings,
      exists (select 1 from information_schema.columns where table_schema = ${schema}
        and table_name = 'search_postings' and column_name = 'status') as posting_status
  `.execute(db);
  const before = existing.rows[0];
  const statements = [
    sql`create schema if not exists ${s}`,
    sql`create table if not exists ${s}.search_docs (
      tenant_id text not null,
      space_id text not null,
      doc_kind text not null,
      doc_id text not null,
      doc_no int not null,
      thread_id text,
      block_id text,
      length int not null,
      created_at text not null,
      status text not null,
      terms text[] not null default '{}',
      tfs int[] not null default '{}',
      primary key (tenant_id, space_id, doc_kind, doc_id)
    )`,
    sql`alter table ${s}.search_docs add column if not exists terms text[] not null default '{}'`,
    sql`alter table ${s}.search_docs add column if not exists tfs int[] not null default '{}'`,
    // The term vectors are read, never filtered on: ANALYZE keeps no statistics for them. Their
    // element statistics were most of the table's ANALYZE (scratch, PGlite, 746 pages: 128–175
    // ms with them, 35–40 without), which the projector runs inside a batch (ADR 0022).
    sql`alter table ${s}.search_docs
      alter column terms set statistics 0, alter column tfs set statistics 0`,
    // Numbered below when the schema predates document numbers.
    sql`alter table ${s}.search_docs add column if not exists doc_no int`,
    sql`create index if not exists search_docs_by_thread on ${s}.search_docs
      (tenant_id, space_id, doc_kind, thread_id)`,
    sql`create table if not exists ${s}.search_doc_numbers (
      tenant_id text not null,
      space_id text not null,
      doc_kind text not null,
      next_no int not null,
      version bigint not null default 0,
      epoch text not null default gen_random_uuid()::text,
      primary key (tenant_id, space_id, doc_kind)
    )`,
    // The index version and epoch the posting caches validate against (ADR 0018).
    sql`alter table ${s}.search_doc_numbers
      add column if not exists version bigint not null default 0,
      add column if not exists epoch text not null default gen_random_uuid()::text`,
    // A chunk holds at most CHUNK_DOCS (512) entries (6,656 bytes): with the tuple target at its
    // maximum it stays inline and uncompressed, so reading it is one heap tuple, not a TOAST
    // look-up per chunk.
    sql`create table if not exists ${s}.search_posting_chunks (
      tenant_id text not null,
      space_id text not null,
      doc_kind text not null,
      term text not null,
      chunk int not null,
      data bytea not null,
      version bigint not null default 0,
      primary key (tenant_id, space_id, doc_kind, term, chunk)
    ) with (toast_tuple_target = 8160)`,
    sql`alter table ${s}.search_posting_chunks
      add column if not exists version bigint not null default 0`,
    // A cached term's changed chunks are found without reading its other chunks (ADR 0018).
    sql`create index if not exists search_posting_chunks_by_version on ${s}.search_posting_chunks
      (tenant_id, space_id, doc_kind, term, version)`,
    sql`create table if not exists ${s}.search_stats (
      tenant_id text not null,
      space_id text not null,
      doc_kind text not null,
      status text not null,
      doc_count bigint not null,
      total_length bigint not null,
      primary key (tenant_id, space_id, doc_kind, status)
    )`,
    sql`create table if not exists ${s}.search_terms (
      tenant_id text not null,
      space_id text not null,
      doc_kind text not null,
      term text not null,
      status text not null,
      df int not null,
      max_tf int not null,
      min_length_per_tf float8 not null,
      primary key (tenant_id, space_id, doc_kind, term, status)
    )`,
  ];
  for (const statement of statements) await statement.execute(db);

  if (before?.row_postings) await convertRowPostings(db, schema, before);

  await sql`alter table ${s}.search_docs alter column doc_no set not null`.execute(db);
  await sql`create unique index if not exists search_docs_by_number on ${s}.search_docs
    (tenant_id, space_id, doc_kind, doc_no)`.execute(db);
  // The postings one row each, for dumps, inspection and tests (never read by queries). The
  // decoding is materialized once per use, so the planner joins its result to the documents by
  // hash instead of decoding again for each document.
  const o = sql.raw('e.o');
  const int32 = (at: number) => sql`(
    (get_byte(c.data, ${o} + ${sql.lit(at)}) << 24) | (get_byte(c.data, ${o} + ${sql.lit(at + 1)}) << 16)
    | (get_byte(c.data, ${o} + ${sql.lit(at + 2)}) << 8) | get_byte(c.data, ${o} + ${sql.lit(at + 3)}))`;
  await sql`
    create or replace view ${s}.search_postings as
    with decoded as materialized (
      select c.tenant_id, c.space_id, c.doc_kind, c.term, ${int32(0)} as doc_no, ${int32(4)} as tf,
        ${int32(8)} as length, (${statusArray()})[get_byte(c.data, ${o} + 12) + 1] as status
      from ${s}.search_posting_chunks c
      cross join lateral generate_series(0, length(c.data) - ${sql.lit(ENTRY_BYTES)},
        ${sql.lit(ENTRY_BYTES)}) as e(o)
    )
    select x.tenant_id, x.space_id, x.doc_kind, x.term, d.doc_id, x.tf, x.length, x.status
    from decoded x
    join ${s}.search_docs d on d.tenant_id = x.tenant_id and d.space_id = x.space_id
      and d.doc_kind = x.doc_kind and d.doc_no = x.doc_no
  `.execute(db);
}

/**
 * A schema with a row per posting: brings the rows up to date (term vectors, the copies of length
 * and status, term statistics), numbers the documents (per kind, in `created_at` then id order),
 * packs the postings and drops the rows.
 */
async function convertRowPostings(
  db: AnyDb,
  schema: string,
  before: { docs: boolean; vectors: boolean; terms: boolean; posting_status: boolean },
): Promise<void> {
  const s = sql.id(schema);
  if (!before.vectors) {
    await sql`
      update ${s}.search_docs d set terms = v.terms, tfs = v.tfs
      from (
        select tenant_id, space_id, doc_kind, doc_id,
          array_agg(term order by term) as terms, array_agg(tf order by term) as tfs
        from ${s}.search_postings
        group by tenant_id, space_id, doc_kind, doc_id
      ) v
      where d.tenant_id = v.tenant_id and d.space_id = v.space_id and d.doc_kind = v.doc_kind
        and d.doc_id = v.doc_id
    `.execute(db);
  }
  if (!before.posting_status) {
    await sql`alter table ${s}.search_postings add column if not exists length int not null default 0,
      add column if not exists status text not null default ''`.execute(db);
    await sql`
      update ${s}.search_postings p set length = d.length, status = d.status
      from ${s}.search_docs d
      where d.tenant_id = p.tenant_id and d.space_id = p.space_id and d.doc_kind = p.doc_kind
        and d.doc_id = p.doc_id
    `.execute(db);
  }
  if (!before.terms) {
    await sql`
      insert into ${s}.search_terms
        (tenant_id, space_id, doc_kind, term, status, df, max_tf, min_length_per_tf)
      -- From the postings alone: they carry their document's length and status (above).
      select tenant_id, space_id, doc_kind, term, status,
        count(*), max(tf), min(length::float8 / tf)
      from ${s}.search_postings
      group by tenant_id, space_id, doc_kind, term, status
    `.execute(db);
  }
  const unknown = await sql<{ status: string }>`
    select distinct status from ${s}.search_docs where status <> all(${statusArray()})
  `.execute(db);
  if (unknown.rows.length > 0) {
    throw new Error(
      `search index in ${schema}: documents with statuses the packed postings cannot store: ${unknown.rows
        .map((r) => r.status)
        .join(', ')}`,
    );
  }
  await sql`
    update ${s}.search_docs d set doc_no = n.no
    from (
      select tenant_id, space_id, doc_kind, doc_id,
        (row_number() over (partition by tenant_id, space_id, doc_kind
          order by created_at collate "C", doc_id collate "C") - 1)::int as no
      from ${s}.search_docs
    ) n
    where d.tenant_id = n.tenant_id and d.space_id = n.space_id and d.doc_kind = n.doc_kind
      and d.doc_id = n.doc_id
  `.execute(db);
  await sql`
    insert into ${s}.search_doc_numbers (tenant_id, space_id, doc_kind, next_no)
    select tenant_id, space_id, doc_kind, max(doc_no) + 1 from ${s}.search_docs
    group by tenant_id, space_id, doc_kind
    on conflict (tenant_id, space_id, doc_kind) do update set next_no = excluded.next_no
  `.execute(db);
  await sql`
    insert into ${s}.search_posting_chunks (tenant_id, space_id, doc_kind, term, chunk, data)
    select tenant_id, space_id, doc_kind, term, doc_no >> ${sql.lit(CHUNK_SHIFT)},
      string_agg(${sql.raw(ENTRY_SQL)}, ''::bytea order by doc_no)
    from (
      select p.tenant_id, p.space_id, p.doc_kind, p.term, d.doc_no, p.tf, d.length,
        array_position(${statusArray()}, d.status) - 1 as status_code
      from ${s}.search_postings p
      join ${s}.search_docs d on d.tenant_id = p.tenant_id and d.space_id = p.space_id
        and d.doc_kind = p.doc_kind and d.doc_id = p.doc_id
    ) x
    group by tenant_id, space_id, doc_kind, term, doc_no >> ${sql.lit(CHUNK_SHIFT)}
  `.execute(db);
  await sql`drop table ${s}.search_postings`.execute(db);
}
