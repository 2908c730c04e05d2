import { sql, type RawBuilder } from 'kysely';
import { BM25_B, BM25_K1, bm25TermScorer, searchTerms, type RankedId } from '@stratagate/domain';
import type { AnyDb } from '../database.ts';
import { assertSchemaName } from '../read-model/migrate.ts';
import { accumulatePostings, forEachPosting, statusMask } from './packed-postings.ts';
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
  /** `top-k` (unscoped, MaxScore) or `scoped` (the scope's documents and the terms' chunks). */
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
 * scope changes N and df, which the statistics do not know, so a scoped search reads the scope's
 * document numbers and the query terms' chunks and counts them in TypeScript (`scopedSearch`).
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
  const key = sql`tenant_id = ${tenantId} and space_id = ${spaceId} and doc_kind = ${q.kind}`;
  // The scope: its size and total length (for N and avgdl) and its document numbers.
  const filters: RawBuilder<unknown>[] = [];
  if (statuses) filters.push(sql`and status in (${sql.join(statuses.map((v) => sql`${v}`))})`);
  if (q.threadId !== undefined) filters.push(sql`and thread_id = ${q.threadId}`);
  if (q.docIds) {
    // A text[] parameter keeps the planner's estimate small (a set-returning function over
    // JSON is costed at 100 rows per call, enough to trigger JIT compilation on a server).
    filters.push(sql`and doc_id = any(${[...q.docIds]}::text[])`);
  }
  const [scope, chunks] = await Promise.all([
    sql<{ n: number; total: number; nos: number[] | null; max_no: number | null }>`
      select count(*)::float8 as n, coalesce(sum(length), 0)::float8 as total,
        array_agg(doc_no) as nos, max(doc_no) as max_no
      from ${sql.id(schema, 'search_docs')}
      where ${key} ${sql.join(filters, sql` `)}
    `.execute(db),
    readChunks(db, schema, key, terms),
  ]);
  const row = scope.rows[0];
  const N = Number(row?.n ?? 0);
  if (!(N > 0) || !row?.nos) return [];
  const avgDocLength = Number(row.total) / N;
  const inScope = new Uint8Array(Number(row.max_no) + 1);
  for (const no of row.nos) inScope[no] = 1;

  // Each term's postings within the scope (its df there), then the sums in term order, so equal
  // documents get bit-equal scores.
  const byTerm = groupChunks(chunks);
  const scores = new Float64Array(inScope.length);
  const isSeen = new Uint8Array(inScope.length);
  const seen: number[] = [];
  for (const term of [...byTerm.keys()].sort(codeUnit)) {
    const docs: number[] = [];
    const tfs: number[] = [];
    const lengths: number[] = [];
    for (const data of byTerm.get(term)!) {
      forEachPosting(data, ALL_STATUSES, (docNo, tf, length) => {
        if (docNo >= inScope.length || inScope[docNo] === 0) return;
        docs.push(docNo);
        tfs.push(tf);
        lengths.push(length);
      });
    }
    if (docs.length === 0) continue;
    const gain = bm25TermScorer({ avgDocLength, df: docs.length, N, k1: BM25_K1, b: BM25_B });
    for (let i = 0; i < docs.length; i++) {
      const docNo = docs[i]!;
      if (isSeen[docNo] === 0) {
        isSeen[docNo] = 1;
        seen.push(docNo);
      }
      scores[docNo] = scores[docNo]! + gain(tfs[i]!, lengths[i]!);
    }
  }
  return rankTop(db, schema, key, q.kind, seen, scores, offset, limit);
}

/** Every status (the mask `forEachPosting` takes). */
const ALL_STATUSES = statusMask(undefined);

/** The packed postings of `terms` under `key` (a (tenant, space, kind) condition). */
async function readChunks(
  db: AnyDb,
  schema: string,
  key: RawBuilder<unknown>,
  terms: readonly string[],
): Promise<{ term: string; data: Uint8Array }[]> {
  const rows = await sql<{ term: string; data: Uint8Array }>`
    select term, data from ${sql.id(schema, 'search_posting_chunks')}
    where ${key} and term in (${sql.join(terms.map((t) => sql`${t}`))})
  `.execute(db);
  return rows.rows;
}

function groupChunks(rows: readonly { term: string; data: Uint8Array }[]) {
  const byTerm = new Map<string, Uint8Array[]>();
  for (const row of rows) {
    const list = byTerm.get(row.term);
    if (list) list.push(row.data);
    else byTerm.set(row.term, [row.data]);
  }
  return byTerm;
}

/**
 * The page [offset, offset + limit) of the documents `final` by their `scores` (indexed by
 * document number), scores > 0 only, best first; ties: messages newer `created_at` first then
 * id, other kinds by id (code-unit order). Reads the ids (and creation times) of the k best and every document tied with the
 * k-th, which the tie-break decides among; `known` holds those already read.
 */
async function rankTop(
  db: AnyDb,
  schema: string,
  key: RawBuilder<unknown>,
  kind: SearchDocKind,
  final: readonly number[],
  scores: Float64Array,
  offset: number,
  limit: number,
  known: Map<number, { id: string; createdAt: string }> = new Map(),
): Promise<RankedId[]> {
  // The k-th best score (every document when there are fewer than k).
  const cut = kthLargest(final, scores, offset + limit, -Infinity);
  const top: [number, number][] = [];
  for (const no of final) {
    const score = scores[no]!;
    if (score >= cut && score > 0) top.push([no, score]);
  }
  const missing = top.map(([no]) => no).filter((no) => !known.has(no));
  if (missing.length > 0) {
    const rows = await sql<{ doc_no: number; doc_id: string; created_at: string }>`
      select doc_no, doc_id, created_at from ${sql.id(schema, 'search_docs')}
      where ${key} and doc_no = any(${missing}::int[])
    `.execute(db);
    for (const row of rows.rows)
      known.set(row.doc_no, { id: row.doc_id, createdAt: row.created_at });
  }
  const ranked = top.flatMap(([no, score]) => {
    const doc = known.get(no);
    return doc ? [{ ...doc, score }] : [];
  });
  const tieBreak =
    kind === 'message'
      ? (a: { id: string; createdAt: string }, b: { id: string; createdAt: string }) =>
          a.createdAt > b.createdAt ? -1 : a.createdAt < b.createdAt ? 1 : codeUnit(a.id, b.id)
      : (a: { id: string }, b: { id: string }) => codeUnit(a.id, b.id);
  ranked.sort((a, b) => (a.score !== b.score ? b.score - a.score : tieBreak(a, b)));
  return ranked.slice(offset, offset + limit).map(({ id, score }) => ({ id, score }));
}

/** Documents completed from their term vectors per round trip. */
const SCORE_CHUNK = 500;
/**
 * Cost model of `topKSearch`. `docCost`: what completing one document from its term vector counts
 * as, in postings read; packed postings decode in well under a microsecond each, while a
 * completion is a row with the document's whole term vector (tens of microseconds; ADR 0017).
 * `postingsBatch`: rare terms are read together while their postings add up to at most this many,
 * so most queries read every term they need in one round trip. Mutable so that tests can exercise
 * the skipping of frequent terms on a small corpus.
 */
export const TOP_K_TUNING = { docCost: 64, postingsBatch: 32_000 };
/** Relative slack on bound comparisons, so float rounding never prunes a document that ties. */
const SLACK = 1e-9;

interface TermBound {
  term: string;
  df: number;
  /** The most one document can get from this term (at max_tf and min_length_per_tf). */
  upper: number;
  /** This term's contribution as a function of (tf, length). */
  gain: (tf: number, length: number) => number;
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
 * scores whichever way they were completed. Partial scores live in arrays indexed by document
 * number (ADR 0017).
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
    const mask = statusMask(statuses);
    const terms = sql.join(queryTerms.map((t) => sql`${t}`));
    // One round trip for the statistics and the chunks of the rarest terms: those whose document
    // frequencies, rarest first, add up to one batch of postings (most of what the first read of
    // MaxScore takes; a term it reads that is not among them is read then).
    const facts = await sql<{
      row: 'totals' | 'term' | 'chunk';
      term: string | null;
      df: number | null;
      max_tf: number | null;
      min_length_per_tf: number | null;
      next_no: number | null;
      data: Uint8Array | null;
    }>`
      with terms as (
        select term, sum(df)::float8 as df, max(max_tf)::float8 as max_tf,
          min(min_length_per_tf)::float8 as min_length_per_tf
        from ${sql.id(schema, 'search_terms')}
        where ${key} and term in (${terms}) ${statusFilter}
        group by term
        having sum(df) > 0
      ),
      rare as (
        select term from (select term, sum(df) over (order by df, term) as running from terms) r
        where running <= ${TOP_K_TUNING.postingsBatch}
      )
      -- N (df), the total length (max_tf) and the next document number.
      select 'totals' as row, null::text as term, coalesce(sum(doc_count), 0)::float8 as df,
        coalesce(sum(total_length), 0)::float8 as max_tf, null::float8 as min_length_per_tf,
        (select coalesce(max(next_no), 0) from ${sql.id(schema, 'search_doc_numbers')}
          where ${key}) as next_no, null::bytea as data
      from ${sql.id(schema, 'search_stats')} where ${key} ${statusFilter}
      union all
      select 'term', term, df, max_tf, min_length_per_tf, null, null from terms
      union all
      select 'chunk', term, null, null, null, null, data
      from ${sql.id(schema, 'search_posting_chunks')}
      where ${key} and term in (select term from rare)
    `.execute(db);
    const prefetched = groupChunks(
      facts.rows.flatMap((r) =>
        r.row === 'chunk' && r.term !== null && r.data ? [{ term: r.term, data: r.data }] : [],
      ),
    );
    const totals = facts.rows.find((r) => r.row === 'totals');
    const N = Number(totals?.df ?? 0);
    if (!(N > 0)) return [];
    const avgDocLength = Number(totals?.max_tf ?? 0) / N;
    const numbers = Number(totals?.next_no ?? 0);

    const bounds: TermBound[] = facts.rows.flatMap((r) => {
      if (r.row !== 'term' || r.term === null) return [];
      const df = Number(r.df);
      const gain = bm25TermScorer({ avgDocLength, df, N, k1: BM25_K1, b: BM25_B });
      const maxTf = Number(r.max_tf);
      // idf·(k1+1)/(1 + k1(1−b)/tf + k1·b·(length/tf)/avgdl) at its best case.
      return [{ term: r.term, df, upper: gain(maxTf, Number(r.min_length_per_tf) * maxTf), gain }];
    });
    if (bounds.length === 0) return [];
    counts.terms = bounds.length;
    bounds.sort((a, b) => b.upper - a.upper || (a.term < b.term ? -1 : 1));
    // rest[e]: the most a document can get from the terms not read yet (bounds[e..]).
    const rest = new Array<number>(bounds.length + 1).fill(0);
    for (let e = bounds.length - 1; e >= 0; e--) rest[e] = rest[e + 1]! + bounds[e]!.upper;

    const k = offset + limit;
    /** Exact contributions of the terms read so far (a lower bound of the final score). */
    const partial = new Float64Array(numbers);
    /** The documents with a partial score, in the order first seen. */
    const seen: number[] = [];
    const isSeen = new Uint8Array(numbers);
    /** Documents completed from their term vectors. */
    const completed = new Set<number>();
    const known = new Map<number, { id: string; createdAt: string }>();
    let theta = 0;
    const reaches = (bound: number) => bound * (1 + SLACK) >= theta;

    /** Documents the unread terms could still lift to θ (they need completing). */
    const toComplete = () => {
      let n = 0;
      for (const no of seen) if (reaches(partial[no]! + rest[e]!)) n++;
      return n;
    };
    let e = 0;
    while (
      e < bounds.length &&
      // Unseen documents could still reach θ, or reading the next term is cheaper than
      // completing every document that could.
      (reaches(rest[e]!) || toComplete() * TOP_K_TUNING.docCost > bounds[e]!.df)
    ) {
      // The next term, with the following ones while their postings stay few.
      const batch = [bounds[e]!];
      let postings = bounds[e]!.df;
      e++;
      while (e < bounds.length && postings + bounds[e]!.df <= TOP_K_TUNING.postingsBatch) {
        postings += bounds[e]!.df;
        batch.push(bounds[e]!);
        e++;
      }
      // Terms whose chunks came with the statistics are not read again. (A term with df > 0
      // has postings, so it has chunks.)
      const missing = batch.filter((t) => !prefetched.has(t.term)).map((t) => t.term);
      const read =
        missing.length === 0
          ? new Map<string, Uint8Array[]>()
          : groupChunks(await readChunks(db, schema, key, missing));
      counts.termsRead += batch.length;
      // Term by term in bound order, so every document's sum runs in the same order.
      // (Documents numbered after the totals were read are past the end of `partial`: skipped.)
      for (const t of batch) {
        for (const data of prefetched.get(t.term) ?? read.get(t.term) ?? []) {
          counts.postingsRead += accumulatePostings(data, mask, t.gain, partial, isSeen, seen);
        }
      }
      // Scores only grow, so θ does too: values below the last θ cannot be the k-th.
      theta = kthLargest(seen, partial, k, theta);
    }

    if (e < bounds.length) {
      // Complete the documents that the unread terms could still lift to θ, best first.
      const unread = bounds.slice(e);
      // θ only rises, so a document that cannot reach it now never will.
      const order = seen
        .filter((no) => reaches(partial[no]! + rest[e]!))
        .sort((a, b) => partial[b]! - partial[a]!);
      let i = 0;
      while (i < order.length && reaches(partial[order[i]!]! + rest[e]!)) {
        const chunk: number[] = [];
        while (
          i < order.length &&
          chunk.length < SCORE_CHUNK &&
          reaches(partial[order[i]!]! + rest[e]!)
        ) {
          chunk.push(order[i]!);
          i++;
        }
        const docs = await sql<{
          doc_no: number;
          doc_id: string;
          created_at: string;
          length: number;
          terms: string[];
          tfs: number[];
        }>`
          select doc_no, doc_id, created_at, length, terms, tfs
          from ${sql.id(schema, 'search_docs')}
          where ${key} and doc_no = any(${chunk}::int[])
        `.execute(db);
        counts.docsScored += docs.rows.length;
        for (const doc of docs.rows) {
          const tfOf = new Map(doc.terms.map((term, j) => [term, doc.tfs[j]!]));
          let score = partial[doc.doc_no]!;
          for (const t of unread) {
            const tf = tfOf.get(t.term);
            if (tf !== undefined) score += t.gain(tf, doc.length);
          }
          partial[doc.doc_no] = score;
          completed.add(doc.doc_no);
          known.set(doc.doc_no, { id: doc.doc_id, createdAt: doc.created_at });
        }
        theta = kthLargest(seen, partial, k, theta);
      }
    }
    // Every term read: the partial scores are final; otherwise the completed ones are.
    const final = e === bounds.length ? seen : [...completed];
    return rankTop(db, schema, key, kind, final, partial, offset, limit, known);
  }
}

/**
 * The k-th largest of `scores[no]` over the documents `nos`, known to be at least `floor`
 * (returned when fewer than k scores reach it, so 0 for fewer than k scores at floor 0): only the
 * scores ≥ floor are copied, then quickselect.
 */
function kthLargest(nos: readonly number[], scores: Float64Array, k: number, floor = 0): number {
  if (k <= 0) return floor;
  const kept: number[] = [];
  for (const no of nos) {
    const v = scores[no]!;
    if (v >= floor) kept.push(v);
  }
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
