import { sql } from 'kysely';
import type { AnyDb } from '../database.ts';
import { assertSchemaName } from '../read-model/migrate.ts';
import type { SearchDocKind, SearchSpace } from './tables.ts';

/** One document to index: weighted term frequencies and length as `docTermFrequencies` gives. */
export interface SearchDocInput {
  docId: string;
  threadId: string | null;
  blockId: string | null;
  createdAt: string;
  status: string;
  terms: ReadonlyMap<string, number>;
  length: number;
}

/**
 * Inserts documents with their postings and adds them to `search_stats`, in one statement.
 * Idempotent: a document already indexed is left as it is (insert … on conflict do nothing), and
 * only rows that were really inserted count in the stats and get postings, so a redelivered batch
 * changes nothing. A document id repeated within the batch counts once (the first wins).
 * Returns the number of documents inserted.
 */
export async function writeSearchDocs(
  db: AnyDb,
  schema: string,
  space: SearchSpace,
  kind: SearchDocKind,
  docs: readonly SearchDocInput[],
): Promise<number> {
  assertSchemaName(schema);
  const seen = new Set<string>();
  const docRows: Record<string, unknown>[] = [];
  const postingRows: Record<string, unknown>[] = [];
  for (const doc of docs) {
    if (seen.has(doc.docId)) continue;
    seen.add(doc.docId);
    docRows.push({
      doc_id: doc.docId,
      thread_id: doc.threadId,
      block_id: doc.blockId,
      length: doc.length,
      created_at: doc.createdAt,
      status: doc.status,
    });
    for (const [term, tf] of doc.terms) {
      if (tf > 0) postingRows.push({ term, doc_id: doc.docId, tf });
    }
  }
  if (docRows.length === 0) return 0;
  const { tenantId, spaceId } = space;
  const docsTable = sql.id(schema, 'search_docs');
  const postingsTable = sql.id(schema, 'search_postings');
  const statsTable = sql.id(schema, 'search_stats');
  const result = await sql<{ inserted: number }>`
    with input as (
      select * from jsonb_to_recordset(${JSON.stringify(docRows)}::jsonb) as x(
        doc_id text, thread_id text, block_id text, length int, created_at text, status text)
    ),
    inserted as (
      insert into ${docsTable}
        (tenant_id, space_id, doc_kind, doc_id, thread_id, block_id, length, created_at, status)
      select ${tenantId}, ${spaceId}, ${kind}, doc_id, thread_id, block_id, length, created_at, status
      from input
      on conflict do nothing
      returning doc_id, length, status
    ),
    postings as (
      insert into ${postingsTable} (tenant_id, space_id, doc_kind, term, doc_id, tf)
      select ${tenantId}, ${spaceId}, ${kind}, p.term, p.doc_id, p.tf
      from jsonb_to_recordset(${JSON.stringify(postingRows)}::jsonb) as p(term text, doc_id text, tf int)
      join inserted i on i.doc_id = p.doc_id
      on conflict do nothing
    ),
    stats as (
      insert into ${statsTable} as s (tenant_id, space_id, doc_kind, status, doc_count, total_length)
      select ${tenantId}, ${spaceId}, ${kind}, status, count(*), sum(length)
      from inserted
      group by status
      on conflict (tenant_id, space_id, doc_kind, status) do update set
        doc_count = s.doc_count + excluded.doc_count,
        total_length = s.total_length + excluded.total_length
    )
    select count(*)::int as inserted from inserted
  `.execute(db);
  return result.rows[0]?.inserted ?? 0;
}

/**
 * Sets the status of indexed documents, keeping their postings, and moves their counts between
 * the status buckets of `search_stats`. Documents already in that status (or not indexed) are left
 * alone, so a redelivery changes nothing. Returns the number of documents whose status changed.
 */
export async function setSearchDocStatus(
  db: AnyDb,
  schema: string,
  space: SearchSpace,
  kind: SearchDocKind,
  docIds: readonly string[],
  status: string,
): Promise<number> {
  assertSchemaName(schema);
  if (docIds.length === 0) return 0;
  const { tenantId, spaceId } = space;
  const docsTable = sql.id(schema, 'search_docs');
  const statsTable = sql.id(schema, 'search_stats');
  // `old` and the update read the same snapshot, so `old` holds the statuses before the update.
  // Both address rows by the full primary key (doc_id = any(…)): never a join of the table with
  // itself, which a planner without statistics runs as a nested loop over the whole space.
  const ids = [...new Set(docIds)];
  const result = await sql<{ changed: number }>`
    with old as (
      select doc_id, status from ${docsTable}
      where tenant_id = ${tenantId} and space_id = ${spaceId} and doc_kind = ${kind}
        and doc_id = any(${ids}::text[]) and status <> ${status}
    ),
    updated as (
      update ${docsTable} set status = ${status}
      where tenant_id = ${tenantId} and space_id = ${spaceId} and doc_kind = ${kind}
        and doc_id = any(${ids}::text[]) and status <> ${status}
      returning doc_id, length
    ),
    changed as (
      select o.status as old_status, u.length from updated u join old o on o.doc_id = u.doc_id
    ),
    removed as (
      insert into ${statsTable} as s (tenant_id, space_id, doc_kind, status, doc_count, total_length)
      select ${tenantId}, ${spaceId}, ${kind}, old_status, -count(*), -sum(length)
      from changed
      group by old_status
      on conflict (tenant_id, space_id, doc_kind, status) do update set
        doc_count = s.doc_count + excluded.doc_count,
        total_length = s.total_length + excluded.total_length
    ),
    added as (
      insert into ${statsTable} as s (tenant_id, space_id, doc_kind, status, doc_count, total_length)
      select ${tenantId}, ${spaceId}, ${kind}, ${status}, count(*), sum(length)
      from changed
      having count(*) > 0
      on conflict (tenant_id, space_id, doc_kind, status) do update set
        doc_count = s.doc_count + excluded.doc_count,
        total_length = s.total_length + excluded.total_length
    )
    select count(*)::int as changed from changed
  `.execute(db);
  return result.rows[0]?.changed ?? 0;
}

/**
 * Sets the indexed state of the documents `docIds` to exactly `docs`: every listed document is
 * removed (its postings deleted, its length and count taken out of `search_stats`), then the
 * documents of `docs` are written. A listed id without a new version ends up not indexed; a document
 * of `docs` is replaced even if its id is not listed. Statistics buckets of `kind` that reach zero
 * documents are dropped, so the tables equal a fresh index of the same final documents whatever
 * sequence of replacements led there. Same input → same index state, so redelivery is harmless.
 * Returns how many documents were removed and written.
 */
export async function replaceSearchDocs(
  db: AnyDb,
  schema: string,
  space: SearchSpace,
  kind: SearchDocKind,
  input: { docIds: readonly string[]; docs: readonly SearchDocInput[] },
): Promise<{ removed: number; written: number }> {
  assertSchemaName(schema);
  const ids = [...new Set([...input.docIds, ...input.docs.map((d) => d.docId)])];
  if (ids.length === 0) return { removed: 0, written: 0 };
  const { tenantId, spaceId } = space;
  const docsTable = sql.id(schema, 'search_docs');
  const postingsTable = sql.id(schema, 'search_postings');
  const statsTable = sql.id(schema, 'search_stats');
  const removed = await sql<{ removed: number }>`
    with old as (
      delete from ${docsTable}
      where tenant_id = ${tenantId} and space_id = ${spaceId} and doc_kind = ${kind}
        and doc_id = any(${ids}::text[])
      returning status, length
    ),
    postings as (
      delete from ${postingsTable}
      where tenant_id = ${tenantId} and space_id = ${spaceId} and doc_kind = ${kind}
        and doc_id = any(${ids}::text[])
    ),
    stats as (
      update ${statsTable} as s set
        doc_count = s.doc_count - o.n,
        total_length = s.total_length - o.total
      from (select status, count(*) as n, sum(length) as total from old group by status) as o
      where s.tenant_id = ${tenantId} and s.space_id = ${spaceId} and s.doc_kind = ${kind}
        and s.status = o.status
    )
    select count(*)::int as removed from old
  `.execute(db);
  const written = await writeSearchDocs(db, schema, space, kind, input.docs);
  await sql`
    delete from ${statsTable}
    where tenant_id = ${tenantId} and space_id = ${spaceId} and doc_kind = ${kind}
      and doc_count = 0
  `.execute(db);
  return { removed: removed.rows[0]?.removed ?? 0, written };
}
