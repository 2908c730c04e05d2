import { sql } from 'kysely';
import type { AnyDb } from '../database.ts';
import { assertSchemaName } from '../read-model/migrate.ts';

/** Creates the search index tables in a read-model schema (idempotent; the schema must exist). */
export async function migrateSearchIndex(db: AnyDb, schema: string): Promise<void> {
  assertSchemaName(schema);
  const s = sql.id(schema);
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
      primary key (tenant_id, space_id, doc_kind, doc_id)
    )`,
    sql`create index if not exists search_docs_by_thread on ${s}.search_docs
      (tenant_id, space_id, doc_kind, thread_id)`,
    sql`create table if not exists ${s}.search_postings (
      tenant_id text not null,
      space_id text not null,
      doc_kind text not null,
      term text not null,
      doc_id text not null,
      tf int not null,
      primary key (tenant_id, space_id, doc_kind, term, doc_id)
    )`,
    sql`create table if not exists ${s}.search_stats (
      tenant_id text not null,
      space_id text not null,
      doc_kind text not null,
      status text not null,
      doc_count bigint not null,
      total_length bigint not null,
      primary key (tenant_id, space_id, doc_kind, status)
    )`,
  ];
  for (const statement of statements) await statement.execute(db);
}
