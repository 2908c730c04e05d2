import { sql, type RawBuilder } from 'kysely';
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

/** The document's term vector: terms with tf > 0, sorted (the order `search_docs` keeps). */
function termVector(terms: ReadonlyMap<string, number>): { terms: string[]; tfs: number[] } {
  const entries = [...terms].filter(([, tf]) => tf > 0);
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { terms: entries.map(([t]) => t), tfs: entries.map(([, tf]) => tf) };
}

/** Upsert of `search_terms` from rows (term, status, df, max_tf, min_length_per_tf) of a CTE. */
function addTermStats(
  schema: string,
  space: SearchSpace,
  kind: SearchDocKind,
  from: RawBuilder<unknown>,
) {
  return sql`
    insert into ${sql.id(schema, 'search_terms')} as t
      (tenant_id, space_id, doc_kind, term, status, df, max_tf, min_length_per_tf)
    select ${space.tenantId}, ${space.spaceId}, ${kind}, term, status, df, max_tf,
      min_length_per_tf
    from (${from}) as x
    on conflict (tenant_id, space_id, doc_kind, term, status) do update set
      df = t.df + excluded.df,
      max_tf = greatest(t.max_tf, excluded.max_tf),
      min_length_per_tf = least(t.min_length_per_tf, excluded.min_length_per_tf)`;
}

/** Takes document counts (rows term, status, df of a CTE) out of `search_terms`. */
function subtractTermCounts(
  schema: string,
  space: SearchSpace,
  kind: SearchDocKind,
  from: RawBuilder<unknown>,
) {
  return sql`
    update ${sql.id(schema, 'search_terms')} as t set df = t.df - x.df
    from (${from}) as x
    where t.tenant_id = ${space.tenantId} and t.space_id = ${space.spaceId}
      and t.doc_kind = ${kind} and t.term = x.term and t.status = x.status`;
}

/**
 * Inserts documents with their postings, adds them to `search_stats` and their terms to
 * `search_terms`, in one statement. Idempotent: a document already indexed is left as it is
 * (insert … on conflict do nothing), and only rows that were really inserted count in the
 * statistics and get postings, so a redelivered batch changes nothing. A document id repeated
 * within the batch counts once (the first wins). Returns the number of documents inserted.
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
      ...termVector(doc.terms),
    });
  }
  if (docRows.length === 0) return 0;
  const { tenantId, spaceId } = space;
  const docsTable = sql.id(schema, 'search_docs');
  const postingsTable = sql.id(schema, 'search_postings');
  const statsTable = sql.id(schema, 'search_stats');
  const result = await sql<{ inserted: number }>`
    with input as (
      select * from jsonb_to_recordset(${JSON.stringify(docRows)}::jsonb) as x(
        doc_id text, thread_id text, block_id text, length int, created_at text, status text,
        terms text[], tfs int[])
    ),
    inserted as (
      insert into ${docsTable} (tenant_id, space_id, doc_kind, doc_id, thread_id, block_id, length,
        created_at, status, terms, tfs)
      select ${tenantId}, ${spaceId}, ${kind}, doc_id, thread_id, block_id, length, created_at,
        status, terms, tfs
      from input
      on conflict do nothing
      returning doc_id, length, status, terms, tfs
    ),
    vectors as (
      select i.doc_id, i.length, i.status, v.term, v.tf
      from inserted i cross join lateral unnest(i.terms, i.tfs) as v(term, tf)
    ),
    postings as (
      insert into ${postingsTable}
        (tenant_id, space_id, doc_kind, term, doc_id, tf, length, status)
      select ${tenantId}, ${spaceId}, ${kind}, term, doc_id, tf, length, status from vectors
    ),
    terms as (
      ${addTermStats(
        schema,
        space,
        kind,
        sql`select term, status, count(*)::int as df, max(tf) as max_tf,
              min(length::float8 / tf) as min_length_per_tf
            from vectors group by term, status`,
      )}
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
 * the status buckets of `search_stats` and `search_terms` (the bounds of the bucket they leave
 * stay as they were: still bounds). Documents already in that status (or not indexed) are left
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
      returning doc_id, length, terms, tfs
    ),
    changed as (
      select o.status as old_status, u.doc_id, u.length, u.terms, u.tfs
      from updated u join old o on o.doc_id = u.doc_id
    ),
    vectors as (
      select c.old_status, c.doc_id, c.length, v.term, v.tf
      from changed c cross join lateral unnest(c.terms, c.tfs) as v(term, tf)
    ),
    postings as (
      -- The postings carry their document's status: each one by its whole primary key.
      update ${sql.id(schema, 'search_postings')} as p set status = ${status}
      from vectors v
      where p.tenant_id = ${tenantId} and p.space_id = ${spaceId} and p.doc_kind = ${kind}
        and p.term = v.term and p.doc_id = v.doc_id
    ),
    terms_removed as (
      ${subtractTermCounts(
        schema,
        space,
        kind,
        sql`select term, old_status as status, count(*)::int as df
            from vectors group by term, old_status`,
      )}
    ),
    terms_added as (
      ${addTermStats(
        schema,
        space,
        kind,
        sql`select term, ${status}::text as status, count(*)::int as df, max(tf) as max_tf,
              min(length::float8 / tf) as min_length_per_tf
            from vectors group by term`,
      )}
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
  const termsTable = sql.id(schema, 'search_terms');
  const key = sql`tenant_id = ${tenantId} and space_id = ${spaceId} and doc_kind = ${kind}`;
  const removed = await sql<{ removed: number; terms: string[] | null }>`
    with old as (
      delete from ${docsTable}
      where ${key} and doc_id = any(${ids}::text[])
      returning doc_id, status, length, terms, tfs
    ),
    vectors as (
      select o.doc_id, o.status, v.term
      from old o cross join lateral unnest(o.terms, o.tfs) as v(term, tf)
    ),
    postings as (
      -- By the documents' own term vectors: each posting by its whole primary key.
      delete from ${postingsTable} p
      using vectors v
      where p.tenant_id = ${tenantId} and p.space_id = ${spaceId} and p.doc_kind = ${kind}
        and p.term = v.term and p.doc_id = v.doc_id
    ),
    terms as (
      ${subtractTermCounts(
        schema,
        space,
        kind,
        sql`select term, status, count(*)::int as df from vectors group by term, status`,
      )}
    ),
    stats as (
      update ${statsTable} as s set
        doc_count = s.doc_count - o.n,
        total_length = s.total_length - o.total
      from (select status, count(*) as n, sum(length) as total from old group by status) as o
      where s.tenant_id = ${tenantId} and s.space_id = ${spaceId} and s.doc_kind = ${kind}
        and s.status = o.status
    )
    select (select count(*)::int from old) as removed,
      (select array_agg(distinct term) from vectors) as terms
  `.execute(db);
  const written = await writeSearchDocs(db, schema, space, kind, input.docs);
  // The bounds of the term buckets the removed documents left are recomputed over what remains,
  // and buckets that reach zero are dropped: the same state as a fresh index of the final docs.
  const touched = removed.rows[0]?.terms ?? [];
  if (touched.length > 0) {
    await sql`
      update ${termsTable} as t set max_tf = x.max_tf, min_length_per_tf = x.min_length_per_tf
      from (
        select term, status, max(tf) as max_tf, min(length::float8 / tf) as min_length_per_tf
        from ${postingsTable}
        where tenant_id = ${tenantId} and space_id = ${spaceId} and doc_kind = ${kind}
          and term = any(${touched}::text[])
        group by term, status
      ) x
      where t.tenant_id = ${tenantId} and t.space_id = ${spaceId} and t.doc_kind = ${kind}
        and t.term = x.term and t.status = x.status
    `.execute(db);
    await sql`delete from ${termsTable} where ${key} and df = 0`.execute(db);
  }
  await sql`delete from ${statsTable} where ${key} and doc_count = 0`.execute(db);
  return { removed: removed.rows[0]?.removed ?? 0, written };
}
