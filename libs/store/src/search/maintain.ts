import { sql, type RawBuilder } from 'kysely';
import type { AnyDb } from '../database.ts';
import { assertSchemaName } from '../read-model/migrate.ts';
import {
  CHUNK_SHIFT,
  ENTRY_SQL,
  SEARCH_STATUS_CODES,
  decodePostings,
  searchStatusCode,
} from './packed-postings.ts';
import type { SearchDocKind, SearchSpace } from './tables.ts';
import { editPostings, type NumberedDoc } from './edit-postings.ts';
import {
  bufferInsertedDocs,
  bufferStatusChanges,
  flushSearchWrites,
  searchWriteBuffer,
} from './write-buffer.ts';

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
 * `search_terms`, in one statement. Idempotent: a document already indexed is left as it is, and
 * only documents really inserted are numbered, count in the statistics and get postings, so a
 * redelivered batch changes nothing. A document id repeated within the batch counts once (the
 * first wins). New documents are numbered in input order after every number the (space, kind)
 * has used, and their postings are appended to the chunks of their numbers (ADR 0017). Returns
 * the number of documents inserted.
 */
export async function writeSearchDocs(
  db: AnyDb,
  schema: string,
  space: SearchSpace,
  kind: SearchDocKind,
  docs: readonly SearchDocInput[],
): Promise<number> {
  return writeDocs(db, schema, space, kind, docs, true);
}

async function writeDocs(
  db: AnyDb,
  schema: string,
  space: SearchSpace,
  kind: SearchDocKind,
  docs: readonly SearchDocInput[],
  /** False: never through the batch's write buffer (a caller that reads the chunks next). */
  bufferable: boolean,
): Promise<number> {
  assertSchemaName(schema);
  const seen = new Set<string>();
  const docRows: Record<string, unknown>[] = [];
  for (const doc of docs) {
    if (seen.has(doc.docId)) continue;
    seen.add(doc.docId);
    searchStatusCode(doc.status); // throws for a status the postings cannot store
    docRows.push({
      ord: docRows.length,
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
  const chunksTable = sql.id(schema, 'search_posting_chunks');
  const statsTable = sql.id(schema, 'search_stats');
  const buffer = bufferable ? searchWriteBuffer(schema) : undefined;
  // Numbers and inserts the documents not yet indexed (the rest of the statement, or the batch's
  // write buffer, does their postings and counts).
  const insertedDocs = sql`
    input as (
      select * from jsonb_to_recordset(${JSON.stringify(docRows)}::jsonb) as x(
        ord int, doc_id text, thread_id text, block_id text, length int, created_at text,
        status text, terms text[], tfs int[])
    ),
    fresh as (
      select i.* from input i
      where not exists (
        select 1 from ${docsTable} d
        where d.tenant_id = ${tenantId} and d.space_id = ${spaceId} and d.doc_kind = ${kind}
          and d.doc_id = i.doc_id)
    ),
    numbers as (
      -- Reserves one number per new document and the next index version (the chunks written
      -- carry it; ADR 0018); the row lock orders concurrent writers.
      insert into ${sql.id(schema, 'search_doc_numbers')} as n
        (tenant_id, space_id, doc_kind, next_no, version)
      select ${tenantId}, ${spaceId}, ${kind}, count(*), 1 from fresh having count(*) > 0
      on conflict (tenant_id, space_id, doc_kind) do update set
        next_no = n.next_no + excluded.next_no, version = n.version + 1
      returning next_no, version
    ),
    numbered as (
      select f.*, ((select next_no from numbers) - (select count(*) from fresh)
        + row_number() over (order by f.ord) - 1)::int as doc_no
      from fresh f
    ),
    inserted as (
      insert into ${docsTable} (tenant_id, space_id, doc_kind, doc_id, doc_no, thread_id, block_id,
        length, created_at, status, terms, tfs)
      select ${tenantId}, ${spaceId}, ${kind}, doc_id, doc_no, thread_id, block_id, length,
        created_at, status, terms, tfs
      from numbered
      on conflict do nothing
      returning doc_no, length, status, terms, tfs
    )`;
  if (buffer) {
    // In a batch: the documents now, their postings and counts at the end of the batch.
    const rows = await sql<{
      doc_no: number;
      length: number;
      status: string;
      terms: string[];
      tfs: number[];
    }>`with ${insertedDocs} select * from inserted`.execute(db);
    bufferInsertedDocs(buffer, space, kind, rows.rows);
    return rows.rows.length;
  }
  const result = await sql<{ inserted: number }>`
    with ${insertedDocs},
    vectors as (
      select i.doc_no, i.length, i.status, v.term, v.tf,
        array_position(${[...SEARCH_STATUS_CODES]}::text[], i.status) - 1 as status_code
      from inserted i cross join lateral unnest(i.terms, i.tfs) as v(term, tf)
    ),
    chunks as (
      insert into ${chunksTable} as c (tenant_id, space_id, doc_kind, term, chunk, data, version)
      select ${tenantId}, ${spaceId}, ${kind}, term, doc_no >> ${sql.lit(CHUNK_SHIFT)},
        string_agg(${sql.raw(ENTRY_SQL)}, ''::bytea order by doc_no),
        (select version from numbers)
      from vectors
      group by term, doc_no >> ${sql.lit(CHUNK_SHIFT)}
      -- One lock order for every writer of the same chunks.
      order by term, doc_no >> ${sql.lit(CHUNK_SHIFT)}
      on conflict (tenant_id, space_id, doc_kind, term, chunk) do update set
        data = c.data || excluded.data, version = excluded.version
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
 * Takes the next index version of a (tenant, space, kind) for a write that edits chunks (ADR
 * 0018), first thing in the write, so every writer locks the counter row before any other row of
 * the index. 0 when the kind has no documents (nothing to edit). The caller stamps it in later
 * statements, so it runs in a transaction (its own when it was given none): only then is the
 * lock held until the chunks commit, which keeps versions in commit order.
 */
async function nextIndexVersion(
  db: AnyDb,
  schema: string,
  space: SearchSpace,
  kind: SearchDocKind,
): Promise<number> {
  const result = await sql<{ version: number }>`
    update ${sql.id(schema, 'search_doc_numbers')} set version = version + 1
    where tenant_id = ${space.tenantId} and space_id = ${space.spaceId} and doc_kind = ${kind}
    returning version::float8 as version
  `.execute(db);
  return Number(result.rows[0]?.version ?? 0);
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
  if (!db.isTransaction) {
    return db
      .transaction()
      .execute((trx) => setSearchDocStatus(trx, schema, space, kind, docIds, status));
  }
  const { tenantId, spaceId } = space;
  const docsTable = sql.id(schema, 'search_docs');
  const statsTable = sql.id(schema, 'search_stats');
  // `old` and the update read the same snapshot, so `old` holds the statuses before the update.
  // Both address rows by the full primary key (doc_id = any(…)): never a join of the table with
  // itself, which a planner without statistics runs as a nested loop over the whole space.
  const ids = [...new Set(docIds)];
  const code = searchStatusCode(status);
  const buffer = searchWriteBuffer(schema);
  if (buffer) {
    // In a batch: the documents now, their postings and counts at the end of the batch. Each
    // document by its primary key, whatever the planner knows of the space.
    const moved = await sql<{
      old_status: string;
      doc_no: number;
      length: number;
      terms: string[];
      tfs: number[];
    }>`
      with old as (
        select d.ctid as row, d.doc_id, d.status from unnest(${ids}::text[]) as k(doc_id)
        cross join lateral (
          select ctid, doc_id, status from ${docsTable}
          where tenant_id = ${tenantId} and space_id = ${spaceId} and doc_kind = ${kind}
            and doc_id = k.doc_id and status <> ${status}
          for update
        ) d
      ),
      updated as (
        -- The rows just locked, by their addresses.
        update ${docsTable} set status = ${status}
        where ctid = any(array(select row from old))
        returning doc_id, doc_no, length, terms, tfs
      )
      select o.status as old_status, u.doc_no, u.length, u.terms, u.tfs
      from updated u join old o on o.doc_id = u.doc_id`.execute(db);
    bufferStatusChanges(buffer, space, kind, status, moved.rows);
    return moved.rows.length;
  }
  const version = await nextIndexVersion(db, schema, space, kind);
  const result = await sql<NumberedDoc>`
    with old as (
      select doc_id, status from ${docsTable}
      where tenant_id = ${tenantId} and space_id = ${spaceId} and doc_kind = ${kind}
        and doc_id = any(${ids}::text[]) and status <> ${status}
    ),
    updated as (
      update ${docsTable} set status = ${status}
      where tenant_id = ${tenantId} and space_id = ${spaceId} and doc_kind = ${kind}
        and doc_id = any(${ids}::text[]) and status <> ${status}
      returning doc_id, doc_no, length, terms, tfs
    ),
    changed as (
      select o.status as old_status, u.doc_id, u.doc_no, u.length, u.terms, u.tfs
      from updated u join old o on o.doc_id = u.doc_id
    ),
    vectors as (
      select c.old_status, c.doc_id, c.length, v.term, v.tf
      from changed c cross join lateral unnest(c.terms, c.tfs) as v(term, tf)
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
    select doc_no, terms from changed
  `.execute(db);
  // The postings carry their document's status: the entries of the changed documents.
  await editPostings(db, schema, space, kind, result.rows, version, (p) => ({
    ...p,
    status: code,
  }));
  return result.rows.length;
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
  input: {
    docIds: readonly string[];
    docs: readonly SearchDocInput[];
    /**
     * `recompute` (default): the bounds of the term buckets the removed documents leave are
     * recomputed over every remaining posting of those terms, so the index equals a fresh one.
     * `keep`: they stay as they were, still bounds (as after a status move) — for a document
     * replaced by one with more text, where reading every posting of its frequent terms would
     * cost far more than the replacement.
     */
    bounds?: 'recompute' | 'keep';
  },
): Promise<{ removed: number; written: number }> {
  assertSchemaName(schema);
  if (!db.isTransaction) {
    return db.transaction().execute((trx) => replaceSearchDocs(trx, schema, space, kind, input));
  }
  const ids = [...new Set([...input.docIds, ...input.docs.map((d) => d.docId)])];
  if (ids.length === 0) return { removed: 0, written: 0 };
  // It reads and removes postings and bounds: what the batch has buffered goes in first.
  await flushSearchWrites(schema);
  const { tenantId, spaceId } = space;
  const docsTable = sql.id(schema, 'search_docs');
  const statsTable = sql.id(schema, 'search_stats');
  const termsTable = sql.id(schema, 'search_terms');
  const key = sql`tenant_id = ${tenantId} and space_id = ${spaceId} and doc_kind = ${kind}`;
  const version = await nextIndexVersion(db, schema, space, kind);
  const removed = await sql<{ old: NumberedDoc[] | null; terms: string[] | null }>`
    with old as (
      delete from ${docsTable}
      where ${key} and doc_id = any(${ids}::text[])
      returning doc_id, doc_no, status, length, terms, tfs
    ),
    vectors as (
      select o.doc_id, o.status, v.term
      from old o cross join lateral unnest(o.terms, o.tfs) as v(term, tf)
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
    select (select json_agg(json_build_object('doc_no', doc_no, 'terms', terms)) from old) as old,
      (select array_agg(distinct term) from vectors) as terms
  `.execute(db);
  // Their postings, by the documents' own term vectors.
  const old = removed.rows[0]?.old ?? [];
  await editPostings(db, schema, space, kind, old, version, () => null);
  const written = await writeDocs(db, schema, space, kind, input.docs, false);
  // The bounds of the term buckets the removed documents left are recomputed over what remains,
  // and buckets that reach zero are dropped: the same state as a fresh index of the final docs.
  const touched = removed.rows[0]?.terms ?? [];
  if (touched.length > 0 && input.bounds === 'keep') {
    await sql`delete from ${termsTable} where ${key} and term = any(${touched}::text[]) and df = 0`.execute(
      db,
    );
  } else if (touched.length > 0) {
    const chunks = await sql<{ term: string; data: Uint8Array }>`
      select term, data from ${sql.id(schema, 'search_posting_chunks')}
      where ${key} and term = any(${touched}::text[])
    `.execute(db);
    const bounds = new Map<string, { term: string; status: string; max_tf: number; min: number }>();
    for (const row of chunks.rows) {
      for (const p of decodePostings(row.data)) {
        const status = SEARCH_STATUS_CODES[p.status]!;
        const at = `${status}|${row.term}`;
        const ratio = p.length / p.tf;
        const b = bounds.get(at);
        if (!b) bounds.set(at, { term: row.term, status, max_tf: p.tf, min: ratio });
        else {
          b.max_tf = Math.max(b.max_tf, p.tf);
          b.min = Math.min(b.min, ratio);
        }
      }
    }
    await sql`
      update ${termsTable} as t set max_tf = x.max_tf, min_length_per_tf = x.min
      from jsonb_to_recordset(${JSON.stringify([...bounds.values()])}::jsonb)
        as x(term text, status text, max_tf int, min float8)
      where t.tenant_id = ${tenantId} and t.space_id = ${spaceId} and t.doc_kind = ${kind}
        and t.term = x.term and t.status = x.status
    `.execute(db);
    await sql`delete from ${termsTable} where ${key} and df = 0`.execute(db);
  }
  await sql`delete from ${statsTable} where ${key} and doc_count = 0`.execute(db);
  return { removed: old.length, written };
}
