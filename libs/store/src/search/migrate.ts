import { sql } from 'kysely';
import type { AnyDb } from '../database.ts';
import { assertSchemaName } from '../read-model/migrate.ts';

/**
 * Creates the search index tables in a read-model schema (idempotent; the schema must exist).
 * A schema built before the term statistics (`search_terms`), the documents' term vectors and the
 * postings' copy of their document's length and status gets them here, computed from what it
 * holds, so a live read model needs no rebuild.
 */
export async function migrateSearchIndex(db: AnyDb, schema: string): Promise<void> {
  assertSchemaName(schema);
  const s = sql.id(schema);
  const existing = await sql<{
    docs: boolean;
    vectors: boolean;
    terms: boolean;
    posting_status: boolean;
  }>`
    select
      to_regclass(${`${schema}.search_docs`}) is not null as docs,
      exists (select 1 from information_schema.columns where table_schema = ${schema}
        and table_name = 'search_docs' and column_name = 'terms') as vectors,
      to_regclass(${`${schema}.search_terms`}) is not null as terms,
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
    sql`create index if not exists search_docs_by_thread on ${s}.search_docs
      (tenant_id, space_id, doc_kind, thread_id)`,
    sql`create table if not exists ${s}.search_postings (
      tenant_id text not null,
      space_id text not null,
      doc_kind text not null,
      term text not null,
      doc_id text not null,
      tf int not null,
      length int not null default 0,
      status text not null default '',
      -- Covering: a term's postings are read by an index-only scan where the visibility map
      -- allows it, not one heap page per posting.
      primary key (tenant_id, space_id, doc_kind, term, doc_id) include (tf, length, status)
    )`,
    sql`alter table ${s}.search_postings add column if not exists length int not null default 0`,
    sql`alter table ${s}.search_postings add column if not exists status text not null default ''`,
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

  // Backfills for a schema whose documents predate the vectors or the term statistics.
  if (before?.docs && !before.vectors) {
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
  if (before?.docs && !before.posting_status) {
    await sql`
      update ${s}.search_postings p set length = d.length, status = d.status
      from ${s}.search_docs d
      where d.tenant_id = p.tenant_id and d.space_id = p.space_id and d.doc_kind = p.doc_kind
        and d.doc_id = p.doc_id
    `.execute(db);
  }
  if (before?.docs && !before.terms) {
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

  // A postings key from before it covered tf, length and status is rebuilt to cover them, after
  // the backfills (an update of the copies would otherwise maintain the wider key row by row).
  const key = await sql<{ covering: boolean }>`
    select i.indnatts > i.indnkeyatts as covering from pg_index i
    where i.indexrelid = to_regclass(${`${schema}.search_postings_pkey`})
  `.execute(db);
  if (key.rows[0] && !key.rows[0].covering) {
    await sql`
      alter table ${s}.search_postings drop constraint search_postings_pkey,
        add constraint search_postings_pkey
          primary key (tenant_id, space_id, doc_kind, term, doc_id) include (tf, length, status)
    `.execute(db);
  }
}
