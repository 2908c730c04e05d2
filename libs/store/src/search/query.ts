import { sql, type RawBuilder } from 'kysely';
import {
  BM25_B,
  BM25_K1,
  bm25Gain,
  bm25TermScorer,
  bm25TermWeights,
  searchTerms,
  type Bm25TermWeights,
  type RankedId,
} from '@stratagate/domain';
import type { AnyDb } from '../database.ts';
import { assertSchemaName } from '../read-model/migrate.ts';
import {
  accumulatePostings,
  forEachPosting,
  statusMask,
  type PostingColumns,
} from './packed-postings.ts';
import { ScoreBoard } from './score-board.ts';
import {
  NO_POSTING_CACHE,
  type CachedDoc,
  type FetchedChunk,
  type PlannedRead,
  type PostingCache,
  type PostingScope,
} from './posting-cache.ts';
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
  /** The caller's date (ISO), for the relative periods a query names ("last week"). */
  today?: string;
  /** Filled with what the search read, when given (tests, benchmarks). */
  work?: SearchWork;
  /**
   * The process's posting cache (ADR 0018): cached terms are read only for chunks changed since.
   * Default: none (every read is whole).
   */
  cache?: PostingCache;
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
  /** Chunk rows the index returned (a cached term's unchanged chunks are not returned). */
  chunksRead?: number;
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
  const terms = searchTerms(q.query, q.today === undefined ? {} : { today: q.today });
  const limit = Math.floor(q.limit);
  const offset = Math.max(0, Math.floor(q.offset ?? 0));
  if (terms.length === 0 || !(limit > 0)) return [];
  if (q.docIds && q.docIds.length === 0) return [];
  const statuses = q.statuses ?? defaultStatuses(q.kind);
  if (statuses && statuses.length === 0) return [];

  const scoped = q.threadId !== undefined || q.docIds !== undefined;
  const work = q.work ?? {};
  work.plan = scoped ? 'scoped' : 'top-k';
  work.chunksRead = 0;
  const reader = new ChunkReader(db, schema, q.space, q.kind, q.cache ?? NO_POSTING_CACHE, work);
  if (!scoped) {
    return topKSearch(reader, statuses, terms, limit, offset, work);
  }
  return scopedSearch(reader, q, terms, statuses, limit, offset);
}

async function scopedSearch(
  reader: ChunkReader,
  q: SearchIndexQuery,
  terms: readonly string[],
  statuses: readonly string[] | undefined,
  limit: number,
  offset: number,
): Promise<RankedId[]> {
  const { db, schema, key } = reader;
  // The scope: its size and total length (for N and avgdl) and its document numbers.
  const filters: RawBuilder<unknown>[] = [];
  if (statuses) filters.push(sql`and status in (${sql.join(statuses.map((v) => sql`${v}`))})`);
  if (q.threadId !== undefined) filters.push(sql`and thread_id = ${q.threadId}`);
  if (q.docIds) {
    // A text[] parameter keeps the planner's estimate small (a set-returning function over
    // JSON is costed at 100 rows per call, enough to trigger JIT compilation on a server).
    filters.push(sql`and doc_id = any(${[...q.docIds]}::text[])`);
  }
  const [scope, byTerm] = await Promise.all([
    sql<{ n: number; total: number; nos: number[] | null; max_no: number | null }>`
      select count(*)::float8 as n, coalesce(sum(length), 0)::float8 as total,
        array_agg(doc_no) as nos, max(doc_no) as max_no
      from ${sql.id(schema, 'search_docs')}
      where ${key} ${sql.join(filters, sql` `)}
    `.execute(db),
    reader.read(terms),
  ]);
  const row = scope.rows[0];
  const N = Number(row?.n ?? 0);
  if (!(N > 0) || !row?.nos) return [];
  const avgDocLength = Number(row.total) / N;
  const inScope = new Uint8Array(Number(row.max_no) + 1);
  for (const no of row.nos) inScope[no] = 1;

  // Each term's postings within the scope (its df there), then the sums in term order, so equal
  // documents get bit-equal scores.
  const board = ScoreBoard.take(inScope.length);
  try {
    for (const term of [...byTerm.keys()].sort(codeUnit)) {
      const docs: number[] = [];
      const tfs: number[] = [];
      const lengths: number[] = [];
      forEachPosting(byTerm.get(term)!, ALL_STATUSES, (docNo, tf, length) => {
        if (docNo >= inScope.length || inScope[docNo] === 0) return;
        docs.push(docNo);
        tfs.push(tf);
        lengths.push(length);
      });
      if (docs.length === 0) continue;
      const gain = bm25TermScorer({ avgDocLength, df: docs.length, N, k1: BM25_K1, b: BM25_B });
      for (let i = 0; i < docs.length; i++) board.add(docs[i]!, gain(tfs[i]!, lengths[i]!));
    }
    return await rankTop(reader, board, undefined, offset, limit);
  } finally {
    board.release();
  }
}

/** Every status (the mask `forEachPosting` takes). */
const ALL_STATUSES = statusMask(undefined);

/** How many times a read is repeated when the cache's answer was voided (a rebuilt index). */
const MAX_READ_ATTEMPTS = 4;

/**
 * Reads the packed postings and documents of one (tenant, space, kind) through the process's
 * cache (ADR 0018): a cached term costs only its chunks written since its snapshot.
 */
class ChunkReader {
  readonly scope: PostingScope;
  /** The (tenant, space, kind) condition on an unqualified table. */
  readonly key: RawBuilder<unknown>;
  /** The index's epoch as the last read returned it (null: no documents, or not read yet). */
  epoch: string | null = null;

  constructor(
    readonly db: AnyDb,
    readonly schema: string,
    readonly space: SearchSpace,
    readonly kind: SearchDocKind,
    readonly cache: PostingCache,
    readonly work: SearchWork,
  ) {
    this.scope = { schema, tenantId: space.tenantId, spaceId: space.spaceId, kind };
    this.key = sql`tenant_id = ${space.tenantId} and space_id = ${space.spaceId} and doc_kind = ${kind}`;
  }

  /** The planned terms as a `q(term, since)` relation. */
  planned(read: PlannedRead): RawBuilder<unknown> {
    return sql`unnest(${read.terms.map((t) => t.term)}::text[],
      ${read.terms.map((t) => t.since)}::int8[]) as q(term, since)`;
  }

  /**
   * One row (row 'chunk') per planned term with chunks newer than its snapshot: their numbers,
   * versions and byte lengths, and their data concatenated. A term's chunks come as one value,
   * not a row each: a term in 6 % of 250k messages has 500 chunks of about 30 entries, and per
   * row the protocol and the driver cost more than the entries.
   */
  newerChunks(read: PlannedRead, condition: RawBuilder<unknown> = sql`true`): RawBuilder<unknown> {
    const { tenantId, spaceId } = this.space;
    return sql`
      select 'chunk' as row, q.term, c.chunks, c.versions, c.lengths, c.data
      from ${this.planned(read)}
      cross join lateral (
        select array_agg(chunk order by chunk) as chunks,
          array_agg(version::float8 order by chunk) as versions,
          array_agg(length(data) order by chunk) as lengths,
          string_agg(data, ''::bytea order by chunk) as data
        from ${sql.id(this.schema, 'search_posting_chunks')} c
        where c.tenant_id = ${tenantId} and c.space_id = ${spaceId} and c.doc_kind = ${this.kind}
          and c.term = q.term and c.version > q.since
      ) c
      where c.chunks is not null and (${condition})`;
  }

  /** The epoch of the index's counter row, as a scalar subquery. */
  epochSql(): RawBuilder<string | null> {
    return sql<string | null>`(select epoch from ${sql.id(this.schema, 'search_doc_numbers')}
      where ${this.key})`;
  }

  /** The postings of `terms`, by term (a term without chunks is absent). */
  async read(terms: readonly string[]): Promise<Map<string, PostingColumns>> {
    const result = new Map<string, PostingColumns>();
    for (let attempt = 1; ; attempt++) {
      const read = this.cache.plan(this.scope, terms);
      const rows = await sql<ChunkRow & { epoch: string | null }>`
        select 'epoch' as row, null::text as term, null::int[] as chunks,
          null::float8[] as versions, null::int[] as lengths, null::bytea as data,
          ${this.epochSql()} as epoch
        union all
        select *, null from (${this.newerChunks(read)}) x
      `.execute(this.db);
      const epoch = rows.rows.find((r) => r.row === 'epoch')?.epoch ?? null;
      if (this.resolve(read, epoch, rows.rows, result)) return result;
      if (attempt >= MAX_READ_ATTEMPTS) {
        throw new Error('search index: the index was rebuilt again and again while being read');
      }
    }
  }

  /**
   * Lays a read's chunk rows over the cached snapshots, into `into`. False when the read assumed
   * an epoch the index no longer has: nothing is taken, the terms must be read again.
   */
  resolve(
    read: PlannedRead,
    epoch: string | null,
    rows: readonly ChunkRow[],
    into: Map<string, PostingColumns>,
  ): boolean {
    this.epoch = epoch;
    if (!this.cache.accept(read, epoch)) return false;
    const fetched = new Map<string, FetchedChunk[]>();
    for (const r of rows) {
      if (r.row !== 'chunk' || r.term === null || !r.chunks || !r.versions || !r.lengths) continue;
      const data = r.data ?? new Uint8Array(0);
      const list: FetchedChunk[] = [];
      let at = 0;
      r.chunks.forEach((chunk, i) => {
        const length = r.lengths![i]!;
        list.push({ chunk, version: Number(r.versions![i]), data: data.subarray(at, at + length) });
        at += length;
      });
      if (at !== data.length) {
        throw new Error(`search index: term ${r.term} came with ${data.length} bytes, not ${at}`);
      }
      fetched.set(r.term, list);
    }
    for (const t of read.terms) {
      const got = fetched.get(t.term) ?? [];
      this.work.chunksRead = (this.work.chunksRead ?? 0) + got.length;
      const columns = this.cache.merge(read, t, epoch, got);
      if (columns.count > 0) into.set(t.term, columns);
    }
    return true;
  }

  /**
   * Ids and creation times of `docNos` (from the cache, the rest in one read), into `known`.
   * With `vectors`, also their lengths and term vectors.
   */
  async docs(
    docNos: readonly number[],
    known: Map<number, CachedDoc>,
    vectors = false,
  ): Promise<void> {
    const cached = this.cache.docs(this.scope, this.epoch, docNos);
    const missing: number[] = [];
    for (const no of docNos) {
      const have = known.get(no) ?? cached.get(no);
      if (have && (!vectors || have.vector)) known.set(no, have);
      else missing.push(no);
    }
    if (missing.length === 0) return;
    const rows = await sql<{
      doc_no: number;
      doc_id: string;
      created_at: string;
      length: number | null;
      terms: string[] | null;
      tfs: number[] | null;
    }>`
      select doc_no, doc_id, created_at,
        ${vectors ? sql`length, terms, tfs` : sql`null::int as length, null::text[] as terms, null::int[] as tfs`}
      from ${sql.id(this.schema, 'search_docs')}
      where ${this.key} and doc_no = any(${missing}::int[])
    `.execute(this.db);
    for (const row of rows.rows) {
      const doc: CachedDoc = { id: row.doc_id, createdAt: row.created_at };
      if (row.terms && row.tfs && row.length !== null) {
        const tfs = row.tfs;
        doc.vector = {
          length: row.length,
          terms: new Map(row.terms.map((term, j) => [term, tfs[j]!])),
        };
      }
      known.set(row.doc_no, doc);
      this.cache.rememberDoc(this.scope, this.epoch, row.doc_no, doc);
    }
  }
}

/** A row of a chunk read: a term's chunks newer than its snapshot. */
interface ChunkRow {
  row: string;
  term: string | null;
  chunks: number[] | null;
  versions: number[] | null;
  lengths: number[] | null;
  /** The chunks' data, concatenated in chunk order (null when all are empty). */
  data: Uint8Array | null;
}

/**
 * The page [offset, offset + limit) of the documents `final` by their `scores` (indexed by
 * document number), scores > 0 only, best first; ties: messages newer `created_at` first then
 * id, other kinds by id (code-unit order). Reads the ids (and creation times) of the k best and every document tied with the
 * k-th, which the tie-break decides among; `known` holds those already read.
 */
async function rankTop(
  reader: ChunkReader,
  board: ScoreBoard,
  final: readonly number[] | undefined,
  offset: number,
  limit: number,
  known: Map<number, CachedDoc> = new Map(),
  floor = -Infinity,
): Promise<RankedId[]> {
  // The k-th best score (every document when there are fewer than k). Only scores at or above
  // `floor`, a known lower bound of it, are looked at.
  const cut = board.kthLargest(offset + limit, floor, final);
  const top: [number, number][] = [];
  const { scores } = board;
  // Indexed loops: iterating a typed array allocates a result object per element.
  const nos = final ?? board.seen;
  const n = final ? final.length : board.count;
  for (let i = 0; i < n; i++) {
    const no = nos[i]!;
    const score = scores[no]!;
    if (score >= cut && score > 0) top.push([no, score]);
  }
  await reader.docs(
    top.map(([no]) => no),
    known,
  );
  const ranked = top.flatMap(([no, score]) => {
    const doc = known.get(no);
    return doc ? [{ id: doc.id, createdAt: doc.createdAt, score }] : [];
  });
  const tieBreak =
    reader.kind === 'message'
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
  /** This term's contribution is `bm25Gain(weights, tf, length)`. */
  weights: Bm25TermWeights;
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
  reader: ChunkReader,
  statuses: readonly string[] | undefined,
  queryTerms: readonly string[],
  limit: number,
  offset: number,
  work: SearchWork,
): Promise<RankedId[]> {
  const counts = { postingsRead: 0, docsScored: 0, terms: 0, termsRead: 0 };
  try {
    return await topK();
  } finally {
    Object.assign(work, counts);
  }

  async function topK(): Promise<RankedId[]> {
    const { db, schema, key } = reader;
    const statusFilter = statuses
      ? sql`and status in (${sql.join(statuses.map((v) => sql`${v}`))})`
      : sql``;
    const mask = statusMask(statuses);
    // The terms as one array parameter: the statement's text is the same for every query, so
    // its prepared statement and plan are reused (a list of placeholders, one per term, made a
    // new statement for each term count, planned anew each time: ~1.2 ms on PGlite).
    const terms = sql`${[...queryTerms]}::text[]`;
    // One round trip for the statistics and postings: the chunks of cached terms written since
    // their snapshots, and the chunks of the rarest terms not cached,
    // those whose document frequencies, rarest first, add up to one batch of postings (most of
    // what the first read of MaxScore takes; a term it reads that is not among them is read then).
    const planned = reader.cache.plan(reader.scope, queryTerms);
    const facts = await sql<
      ChunkRow & {
        df: number | null;
        max_tf: number | null;
        min_length_per_tf: number | null;
        next_no: number | null;
        epoch: string | null;
      }
    >`
      with terms as (
        select term, sum(df)::float8 as df, max(max_tf)::float8 as max_tf,
          min(min_length_per_tf)::float8 as min_length_per_tf
        from ${sql.id(schema, 'search_terms')}
        where ${key} and term = any(${terms}) ${statusFilter}
        group by term
        having sum(df) > 0
      ),
      rare as (
        select term from (
          select t.term, sum(t.df) over (order by t.df, t.term) as running
          from terms t join ${reader.planned(planned)} on q.term = t.term and q.since < 0
        ) r
        where running <= ${TOP_K_TUNING.postingsBatch}
      )
      -- N (df), the total length (max_tf), the next document number and the index's epoch.
      select 'totals' as row, null::text as term, null::int[] as chunks,
        null::float8[] as versions, null::int[] as lengths, null::bytea as data,
        coalesce(sum(doc_count), 0)::float8 as df, coalesce(sum(total_length), 0)::float8 as max_tf,
        null::float8 as min_length_per_tf,
        (select coalesce(max(next_no), 0) from ${sql.id(schema, 'search_doc_numbers')}
          where ${key}) as next_no, ${reader.epochSql()} as epoch
      from ${sql.id(schema, 'search_stats')} where ${key} ${statusFilter}
      union all
      select 'term', term, null, null, null, null, df, max_tf, min_length_per_tf, null, null
      from terms
      union all
      select *, null, null, null, null, null from (${reader.newerChunks(
        planned,
        sql`q.since >= 0 or q.term in (select term from rare)`,
      )}) x
    `.execute(db);
    const totals = facts.rows.find((r) => r.row === 'totals');
    // The cached terms and the rare ones came with the statistics. (If the index was rebuilt
    // since the cache read it, none did: each is read when MaxScore needs it.)
    const prefetched = new Map<string, PostingColumns>();
    const rare = new Set(
      facts.rows.flatMap((r) => (r.row === 'chunk' && r.term !== null ? [r.term] : [])),
    );
    const answered: PlannedRead = {
      ...planned,
      terms: planned.terms.filter((t) => t.since >= 0 || rare.has(t.term)),
    };
    reader.resolve(answered, totals?.epoch ?? null, facts.rows, prefetched);
    const N = Number(totals?.df ?? 0);
    if (!(N > 0)) return [];
    const avgDocLength = Number(totals?.max_tf ?? 0) / N;
    const numbers = Number(totals?.next_no ?? 0);

    const bounds: TermBound[] = facts.rows.flatMap((r) => {
      if (r.row !== 'term' || r.term === null) return [];
      const df = Number(r.df);
      const weights = bm25TermWeights({ avgDocLength, df, N, k1: BM25_K1, b: BM25_B });
      const maxTf = Number(r.max_tf);
      // idf·(k1+1)/(1 + k1(1−b)/tf + k1·b·(length/tf)/avgdl) at its best case.
      const upper = bm25Gain(weights, maxTf, Number(r.min_length_per_tf) * maxTf);
      return [{ term: r.term, df, upper, weights }];
    });
    if (bounds.length === 0) return [];
    counts.terms = bounds.length;
    bounds.sort((a, b) => b.upper - a.upper || (a.term < b.term ? -1 : 1));
    // rest[e]: the most a document can get from the terms not read yet (bounds[e..]).
    const rest = new Array<number>(bounds.length + 1).fill(0);
    for (let e = bounds.length - 1; e >= 0; e--) rest[e] = rest[e + 1]! + bounds[e]!.upper;

    const k = offset + limit;
    /**
     * Exact contributions of the terms read so far (a lower bound of the final score), for the
     * documents seen so far.
     */
    const board = ScoreBoard.take(numbers);
    try {
      return await maxScore(board);
    } finally {
      board.release();
    }

    async function maxScore(board: ScoreBoard): Promise<RankedId[]> {
      const partial = board.scores;
      /** Documents completed from their term vectors. */
      const completed = new Set<number>();
      const known = new Map<number, CachedDoc>();
      let theta = 0;
      const reaches = (bound: number) => bound * (1 + SLACK) >= theta;

      /** Documents the unread terms could still lift to θ (they need completing). */
      const toComplete = () => {
        let n = 0;
        const bound = rest[e]!;
        for (let i = 0; i < board.count; i++) if (reaches(partial[board.seen[i]!]! + bound)) n++;
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
          missing.length === 0 ? new Map<string, PostingColumns>() : await reader.read(missing);
        counts.termsRead += batch.length;
        // Term by term in bound order, so every document's sum runs in the same order.
        // (Documents numbered after the totals were read are past the end of `partial`: skipped.)
        for (const t of batch) {
          const columns = prefetched.get(t.term) ?? read.get(t.term);
          if (columns) counts.postingsRead += accumulatePostings(columns, mask, t.weights, board);
        }
        // Scores only grow, so θ does too: values below the last θ cannot be the k-th.
        theta = board.kthLargest(k, theta);
      }

      if (e < bounds.length) {
        // Complete the documents that the unread terms could still lift to θ, best first.
        const unread = bounds.slice(e);
        // θ only rises, so a document that cannot reach it now never will.
        const order: number[] = [];
        for (let i = 0; i < board.count; i++) {
          const no = board.seen[i]!;
          if (reaches(partial[no]! + rest[e]!)) order.push(no);
        }
        order.sort((a, b) => partial[b]! - partial[a]!);
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
          // Term vectors never change for a number: cached ones need no read (ADR 0018).
          await reader.docs(chunk, known, true);
          for (const no of chunk) {
            const vector = known.get(no)?.vector;
            if (!vector) continue;
            let score = partial[no]!;
            for (const t of unread) {
              const tf = vector.terms.get(t.term);
              if (tf !== undefined) score += bm25Gain(t.weights, tf, vector.length);
            }
            partial[no] = score;
            completed.add(no);
            counts.docsScored++;
          }
          theta = board.kthLargest(k, theta);
        }
      }
      // Every term read: the partial scores are final; otherwise the completed ones are. θ
      // (the k-th best partial score) bounds the k-th best final score from below.
      return rankTop(
        reader,
        board,
        e === bounds.length ? undefined : [...completed],
        offset,
        limit,
        known,
        theta,
      );
    }
  }
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
