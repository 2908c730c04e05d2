import { sql, type RawBuilder } from 'kysely';
import { BM25_B, BM25_K1, bm25Score, searchTerms, type RankedId } from '@stratagate/domain';
import type { AnyDb } from '../database.ts';
import { assertSchemaName } from '../read-model/migrate.ts';
import {
  SEARCHABLE_EVENT_STATUSES,
  SEARCHABLE_NODE_STATUSES,
  type SearchDocKind,
  type SearchSpace,
} from './tables.ts';

export interface SearchIndexQuery {
  space: SearchSpace;
  kind: SearchDocKind;
  query: string;
  limit: number;
  offset?: number;
  /** Only documents of this thread (scope applied before ranking). */
  threadId?: string;
  /**
   * Only documents in these statuses. Default: events active + superseded (forgotten and
   * archived never appear), graph nodes active + disputed, messages any status.
   */
  statuses?: readonly string[];
  /** Hard scope: only these documents (applied before ranking). */
  docIds?: readonly string[];
  /** Filled with what the search read, when given (tests, benchmarks). */
  work?: SearchWork;
}

/** What one search read: postings, and documents scored from their term vectors. */
export interface SearchWork {
  /** `top-k` (unscoped, MaxScore) or `scoped` (one SQL statement over the scoped postings). */
  plan?: 'top-k' | 'scoped';
  /** Postings read (top-k only). */
  postingsRead?: number;
  /** Documents completed from their term vectors (top-k only). */
  docsScored?: number;
  /** Query terms present in the index, and how many of them had their postings read. */
  terms?: number;
  termsRead?: number;
}

/**
 * BM25 (MM-RET-2, k1 1.2, b 0.75) over the postings of the query's distinct terms. Scope (thread,
 * documents, statuses) is applied before ranking, and N, df and avgdl are taken over the scoped
 * set, so the result equals `bm25Rank` run exhaustively over exactly those documents. Only scores
 * > 0; ties: messages newer `created_at` first then id, events and graph nodes by id (code-unit
 * order). An empty query, or one with no lexical match, → [].
 *
 * The unscoped case (statuses only) is an exact top-k search (`topKSearch`): term statistics
 * from `search_terms` give every term's idf and score bound, so it reads the postings of the
 * rare terms and scores only the documents that can still make the top k. A thread or document
 * scope changes N and df, which the statistics do not know, so a scoped search counts them in
 * one SQL statement over the scoped postings (`scopedSearch`).
 */
export async function searchIndex(
  db: AnyDb,
  schema: string,
  q: SearchIndexQuery,
): Promise<RankedId[]> {
  assertSchemaName(schema);
  const terms = searchTerms(q.query);
  const limit = Math.floor(q.limit);
  const offset = Math.max(0, Math.floor(q.offset ?? 0));
  if (terms.length === 0 || !(limit > 0)) return [];
  if (q.docIds && q.docIds.length === 0) return [];
  const statuses = q.statuses ?? defaultStatuses(q.kind);
  if (statuses && statuses.length === 0) return [];

  const scoped = q.threadId !== undefined || q.docIds !== undefined;
  if (q.work) q.work.plan = scoped ? 'scoped' : 'top-k';
  if (!scoped) {
    return topKSearch(db, schema, q.space, q.kind, terms, statuses, limit, offset, q.work);
  }
  return scopedSearch(db, schema, q, terms, statuses, limit, offset);
}

async function scopedSearch(
  db: AnyDb,
  schema: string,
  q: SearchIndexQuery,
  terms: readonly string[],
  statuses: readonly string[] | undefined,
  limit: number,
  offset: number,
): Promise<RankedId[]> {
  const { tenantId, spaceId } = q.space;
  const docs = sql.id(schema, 'search_docs');
  const postings = sql.id(schema, 'search_postings');
  const list = (values: readonly string[]) => sql.join(values.map((v) => sql`${v}`));

  // Filters on search_docs `d`, beyond the (tenant, space, kind) key.
  const filters: RawBuilder<unknown>[] = [];
  if (statuses) filters.push(sql`and d.status in (${list(statuses)})`);
  if (q.threadId !== undefined) filters.push(sql`and d.thread_id = ${q.threadId}`);
  if (q.docIds) {
    filters.push(
      // A text[] parameter keeps the planner's estimate small (a set-returning function over
      // JSON is costed at 100 rows per call, enough to trigger JIT compilation on a server).
      sql`and d.doc_id = any(${[...q.docIds]}::text[])`,
    );
  }
  const docFilter = sql.join(filters, sql` `);
  const stats = sql`select count(*)::float8 as n, coalesce(sum(d.length), 0)::float8 as total
    from ${docs} d
    where d.tenant_id = ${tenantId} and d.space_id = ${spaceId} and d.doc_kind = ${q.kind}
    ${docFilter}`;

  const k1 = sql`${BM25_K1}::float8`;
  const b = sql`${BM25_B}::float8`;
  // Code-unit order (collation "C"), as `topKSearch` and the reference ranker compare.
  const tieBreak =
    q.kind === 'message'
      ? sql`created_at collate "C" desc, doc_id collate "C" asc`
      : sql`doc_id collate "C" asc`;

  // Per-term contributions are summed in term order, so equal documents get bit-equal scores.
  const result = await sql<{ id: string; score: number }>`
    with matches as (
      select p.term, p.doc_id, p.tf::float8 as tf, d.length::float8 as length, d.created_at
      from ${postings} p
      join ${docs} d on d.tenant_id = p.tenant_id and d.space_id = p.space_id
        and d.doc_kind = p.doc_kind and d.doc_id = p.doc_id
      where p.tenant_id = ${tenantId} and p.space_id = ${spaceId} and p.doc_kind = ${q.kind}
        and p.term in (${list(terms)})
        ${docFilter}
    ),
    stats as (${stats}),
    df as (select term, count(*)::float8 as df from matches group by term),
    scored as (
      select m.doc_id, m.created_at,
        sum(
          (ln(1 + (st.n - df.df + 0.5) / (df.df + 0.5)) * (m.tf * (${k1} + 1)))
          / (m.tf + ${k1} * (1 - ${b} + ${b} *
              (case when st.total > 0 then m.length / (st.total / st.n) else 1 end)))
          order by m.term
        ) as score
      from matches m
      join df on df.term = m.term
      cross join stats st
      group by m.doc_id, m.created_at
    )
    select doc_id as id, score from scored
    where score > 0
    order by score desc, ${tieBreak}
    limit ${limit} offset ${offset}
  `.execute(db);
  return result.rows.map((r) => ({ id: r.id, score: Number(r.score) }));
}

/** Documents completed from their term vectors per round trip. */
const SCORE_CHUNK = 500;
/**
 * What completing one document from its term vector counts as, in postings read. On Postgres at
 * 100k events one completion took about 44 µs and one posting about 2.4 µs (a ratio near 18),
 * before the covering key's index-only reads; 8 was the value measured in the benchmark.
 */
const DOC_COST = 8;
/** Rare terms are read together while their postings add up to at most this many. */
const POSTINGS_BATCH = 4_000;
/** Relative slack on bound comparisons, so float rounding never prunes a document that ties. */
const SLACK = 1e-9;

interface TermBound {
  term: string;
  df: number;
  /** The most one document can get from this term (at max_tf and min_length_per_tf). */
  upper: number;
}

/**
 * Exact top-k BM25 over the whole space (statuses only), after MaxScore (Turtle & Flood 1995).
 *
 * `search_terms` gives per term its df (so idf) and a bound on what it can add to any one
 * document (its score at the largest tf and smallest length it has). Terms are read from the
 * highest bound down (the rare ones first). A posting carries its document's length and status,
 * so reading a term's postings adds that term's exact contribution to each document's partial
 * score, and the k-th best partial score is a lower bound θ of the k-th best final score. Reading
 * stops once the terms not read yet cannot lift a document that has none of the read terms to θ.
 * The documents whose partial score plus those terms' bounds still reaches θ are completed from
 * their term vectors, best first, until the next one cannot reach θ. Every document of the true
 * top k is then scored exactly. A frequent term's postings are only read while the rarer terms
 * leave documents that it could still lift into the top k.
 *
 * Every score is summed in one order (the terms by bound), so equal documents get bit-equal
 * scores whichever way they were completed.
 */
async function topKSearch(
  db: AnyDb,
  schema: string,
  space: SearchSpace,
  kind: SearchDocKind,
  queryTerms: readonly string[],
  statuses: readonly string[] | undefined,
  limit: number,
  offset: number,
  work: SearchWork = {},
): Promise<RankedId[]> {
  const counts = { postingsRead: 0, docsScored: 0, terms: 0, termsRead: 0 };
  try {
    return await topK();
  } finally {
    Object.assign(work, counts);
  }

  async function topK(): Promise<RankedId[]> {
    const { tenantId, spaceId } = space;
    const key = sql`tenant_id = ${tenantId} and space_id = ${spaceId} and doc_kind = ${kind}`;
    const statusFilter = statuses
      ? sql`and status in (${sql.join(statuses.map((v) => sql`${v}`))})`
      : sql``;
    const facts = await sql<{
      term: string | null;
      df: number;
      max_tf: number;
      min_length_per_tf: number;
    }>`
      select null::text as term, coalesce(sum(doc_count), 0)::float8 as df,
        coalesce(sum(total_length), 0)::float8 as max_tf, 0::float8 as min_length_per_tf
      from ${sql.id(schema, 'search_stats')} where ${key} ${statusFilter}
      union all
      select term, sum(df)::float8, max(max_tf)::float8, min(min_length_per_tf)::float8
      from ${sql.id(schema, 'search_terms')}
      where ${key} and term in (${sql.join(queryTerms.map((t) => sql`${t}`))}) ${statusFilter}
      group by term
      having sum(df) > 0
    `.execute(db);
    const totals = facts.rows.find((r) => r.term === null);
    const N = Number(totals?.df ?? 0);
    if (!(N > 0)) return [];
    const avgDocLength = Number(totals?.max_tf ?? 0) / N;
    const contribution = (tf: number, docLength: number, df: number) =>
      bm25Score({ tf, docLength, avgDocLength, df, N, k1: BM25_K1, b: BM25_B });

    const bounds: TermBound[] = facts.rows.flatMap((r) =>
      r.term === null
        ? []
        : [
            {
              term: r.term,
              df: Number(r.df),
              // idf·(k1+1)/(1 + k1(1−b)/tf + k1·b·(length/tf)/avgdl) at its best case.
              upper: contribution(
                Number(r.max_tf),
                Number(r.min_length_per_tf) * Number(r.max_tf),
                Number(r.df),
              ),
            },
          ],
    );
    if (bounds.length === 0) return [];
    counts.terms = bounds.length;
    bounds.sort((a, b) => b.upper - a.upper || (a.term < b.term ? -1 : 1));
    // rest[e]: the most a document can get from the terms not read yet (bounds[e..]).
    const rest = new Array<number>(bounds.length + 1).fill(0);
    for (let e = bounds.length - 1; e >= 0; e--) rest[e] = rest[e + 1]! + bounds[e]!.upper;

    const k = offset + limit;
    /** Exact contributions of the terms read so far (a lower bound of the final score). */
    const partial = new Map<string, number>();
    /** Documents completed from their term vectors: final scores. */
    const final = new Map<string, number>();
    const createdAt = new Map<string, string>();
    let theta = 0;
    const reaches = (bound: number) => bound * (1 + SLACK) >= theta;

    /** Documents the unread terms could still lift to θ (they need completing). */
    const toComplete = () => {
      let n = 0;
      for (const score of partial.values()) if (reaches(score + rest[e]!)) n++;
      return n;
    };
    let e = 0;
    while (
      e < bounds.length &&
      // Unseen documents could still reach θ, or reading the next term is cheaper than
      // completing every document that could.
      (reaches(rest[e]!) || toComplete() * DOC_COST > bounds[e]!.df)
    ) {
      // The next term, with the following ones while their postings stay few.
      const batch = [bounds[e]!];
      let postings = bounds[e]!.df;
      e++;
      while (e < bounds.length && postings + bounds[e]!.df <= POSTINGS_BATCH) {
        postings += bounds[e]!.df;
        batch.push(bounds[e]!);
        e++;
      }
      const rows = await sql<{ term: string; doc_id: string; tf: number; length: number }>`
        select term, doc_id, tf, length from ${sql.id(schema, 'search_postings')}
        where ${key} and term in (${sql.join(batch.map((t) => sql`${t.term}`))}) ${statusFilter}
      `.execute(db);
      counts.postingsRead += rows.rows.length;
      counts.termsRead += batch.length;
      // Term by term in bound order, so every document's sum runs in the same order.
      const byTerm = new Map<string, { doc_id: string; tf: number; length: number }[]>();
      for (const row of rows.rows) {
        const list = byTerm.get(row.term);
        if (list) list.push(row);
        else byTerm.set(row.term, [row]);
      }
      for (const t of batch) {
        for (const row of byTerm.get(t.term) ?? []) {
          const gain = contribution(row.tf, row.length, t.df);
          partial.set(row.doc_id, (partial.get(row.doc_id) ?? 0) + gain);
        }
      }
      // Scores only grow, so θ does too: values below the last θ cannot be the k-th.
      theta = kthLargest(partial.values(), k, theta);
    }

    let ranked: [string, number][];
    if (e === bounds.length) {
      // Every term read: the partial scores are final.
      ranked = [...partial];
    } else {
      // Complete the documents that the unread terms could still lift to θ, best first.
      const unread = bounds.slice(e);
      const order = [...partial].sort((a, b) => b[1] - a[1]);
      let i = 0;
      while (i < order.length && reaches(order[i]![1] + rest[e]!)) {
        const chunk: string[] = [];
        while (i < order.length && chunk.length < SCORE_CHUNK && reaches(order[i]![1] + rest[e]!)) {
          chunk.push(order[i]![0]);
          i++;
        }
        const docs = await sql<{
          doc_id: string;
          created_at: string;
          length: number;
          terms: string[];
          tfs: number[];
        }>`
          select doc_id, created_at, length, terms, tfs from ${sql.id(schema, 'search_docs')}
          where ${key} and doc_id = any(${chunk}::text[])
        `.execute(db);
        counts.docsScored += docs.rows.length;
        for (const doc of docs.rows) {
          const tfOf = new Map(doc.terms.map((term, j) => [term, doc.tfs[j]!]));
          let score = partial.get(doc.doc_id) ?? 0;
          for (const t of unread) {
            const tf = tfOf.get(t.term);
            if (tf !== undefined) score += contribution(tf, doc.length, t.df);
          }
          final.set(doc.doc_id, score);
          createdAt.set(doc.doc_id, doc.created_at);
          partial.set(doc.doc_id, score);
        }
        theta = kthLargest(partial.values(), k, theta);
      }
      ranked = [...final];
    }

    // The k best, and every document tied with the k-th (the tie-break decides among them).
    ranked.sort((a, b) => b[1] - a[1]);
    const cut = ranked.length > k ? ranked[k - 1]![1] : -Infinity;
    const top = ranked.filter(([, score]) => score >= cut && score > 0);
    if (kind === 'message') {
      const missing = top.map(([id]) => id).filter((id) => !createdAt.has(id));
      if (missing.length > 0) {
        const rows = await sql<{ doc_id: string; created_at: string }>`
          select doc_id, created_at from ${sql.id(schema, 'search_docs')}
          where ${key} and doc_id = any(${missing}::text[])
        `.execute(db);
        for (const row of rows.rows) createdAt.set(row.doc_id, row.created_at);
      }
    }
    const tieBreak =
      kind === 'message'
        ? (a: string, b: string) => {
            const ca = createdAt.get(a) ?? '';
            const cb = createdAt.get(b) ?? '';
            return ca > cb ? -1 : ca < cb ? 1 : codeUnit(a, b);
          }
        : codeUnit;
    top.sort((a, b) => (a[1] !== b[1] ? b[1] - a[1] : tieBreak(a[0], b[0])));
    return top.slice(offset, offset + limit).map(([id, score]) => ({ id, score }));
  }
}

/**
 * The k-th largest of `values`, known to be at least `floor` (returned when fewer than k values
 * reach it, so 0 for fewer than k values at floor 0): only the values ≥ floor are copied, then
 * quickselect.
 */
function kthLargest(values: Iterable<number>, k: number, floor = 0): number {
  if (k <= 0) return 0;
  const kept: number[] = [];
  for (const v of values) if (v >= floor) kept.push(v);
  if (kept.length < k) return floor;
  const a = Float64Array.from(kept);
  let lo = 0;
  let hi = a.length - 1;
  const target = k - 1; // index in descending order
  while (lo < hi) {
    const pivot = a[(lo + hi) >>> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i]! > pivot) i++;
      while (a[j]! < pivot) j--;
      if (i <= j) {
        const x = a[i]!;
        a[i] = a[j]!;
        a[j] = x;
        i++;
        j--;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else break;
  }
  return a[target]!;
}

const codeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Candidate statuses of a kind when the caller names none (undefined: any status). */
function defaultStatuses(kind: SearchDocKind): readonly string[] | undefined {
  switch (kind) {
    case 'event':
    case 'agent_event':
      return SEARCHABLE_EVENT_STATUSES;
    case 'node':
      return SEARCHABLE_NODE_STATUSES;
    case 'message':
      return undefined;
    default: {
      const never: never = kind;
      throw new Error(`unknown search doc kind ${String(never)}`);
    }
  }
}

export interface SearchStats {
  docCount: number;
  totalLength: number;
}

/** Document count and total length of a kind in a space, summed over `statuses` (default all). */
export async function readSearchStats(
  db: AnyDb,
  schema: string,
  space: SearchSpace,
  kind: SearchDocKind,
  statuses?: readonly string[],
): Promise<SearchStats> {
  assertSchemaName(schema);
  if (statuses && statuses.length === 0) return { docCount: 0, totalLength: 0 };
  const result = await sql<{ n: number; total: number }>`
    select coalesce(sum(doc_count), 0)::float8 as n, coalesce(sum(total_length), 0)::float8 as total
    from ${sql.id(schema, 'search_stats')}
    where tenant_id = ${space.tenantId} and space_id = ${space.spaceId} and doc_kind = ${kind}
    ${statuses ? sql`and status in (${sql.join(statuses.map((s) => sql`${s}`))})` : sql``}
  `.execute(db);
  const row = result.rows[0];
  return { docCount: Number(row?.n ?? 0), totalLength: Number(row?.total ?? 0) };
}
