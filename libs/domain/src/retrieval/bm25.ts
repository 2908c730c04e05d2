import { QUERY_STOP_WORDS } from './stop-words.ts';
import { queryTimeTerms, timeFieldTerms } from './time-terms.ts';
import { indexTokens, indexTokensAsync, stemTerm, tokenize } from './tokenize.ts';

/**
 * BM25 (MM-RET-2), the one formula shared by the in-memory ranker and any postings index:
 *
 *   score(q, d) = Σ_{t ∈ unique(q)} idf(t) · tf·(k1 + 1) / (tf + k1·(1 − b + b·|d|/avgdl))
 *   idf(t)      = ln(1 + (N − df + 0.5) / (df + 0.5))
 *
 * tf and |d| count tokens after field weighting (a field of weight w contributes its tokens
 * floor(w) times, MM-RET-1), so an index stores `docTermFrequencies` per document and gets the
 * same numbers. Query terms count once: repeating a word in a query should not double its say.
 * This idf is always > 0, so a document scores > 0 exactly when it shares a query term.
 */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

export interface WeightedField {
  text: string;
  weight: number;
  /**
   * `text` (default): words, stems and Han bigrams (`indexTokens`). `time`: ISO dates, times or
   * intervals, indexed as calendar terms (`timeFieldTerms`).
   */
  kind?: 'text' | 'time';
}

export interface Bm25Doc {
  id: string;
  fields: readonly WeightedField[];
}

export interface Bm25Options extends SearchTermOptions {
  k1?: number;
  b?: number;
}

export interface RankedId {
  id: string;
  score: number;
}

export interface Bm25TermInput {
  tf: number;
  docLength: number;
  avgDocLength: number;
  df: number;
  N: number;
  k1: number;
  b: number;
}

export function bm25Idf(N: number, df: number): number {
  return Math.log(1 + (N - df + 0.5) / (df + 0.5));
}

/** One term's contribution; 0 when the term is absent from the document. */
export function bm25Score(input: Bm25TermInput): number {
  const { tf, docLength, avgDocLength, df, N, k1, b } = input;
  return bm25TermScorer({ avgDocLength, df, N, k1, b })(tf, docLength);
}

/** The parts of one term's BM25 contribution that do not depend on the document. */
export interface Bm25TermWeights {
  readonly idf: number;
  readonly avgDocLength: number;
  readonly k1: number;
  readonly b: number;
}

export function bm25TermWeights(input: Omit<Bm25TermInput, 'tf' | 'docLength'>): Bm25TermWeights {
  const { avgDocLength, df, N, k1, b } = input;
  return { idf: bm25Idf(N, df), avgDocLength, k1, b };
}

/**
 * One term's contribution to a document with `tf` occurrences and length `docLength`; 0 when
 * the term is absent. A plain function (not a closure per term), so that a loop over many
 * postings calls one function the engine can inline. Every scorer here computes through it, so
 * all give bit-equal scores.
 */
export function bm25Gain(w: Bm25TermWeights, tf: number, docLength: number): number {
  if (tf <= 0) return 0;
  // An all-empty corpus has avgdl 0; a document with tf > 0 cannot be empty, so 1 is a guard.
  const relativeLength = w.avgDocLength > 0 ? docLength / w.avgDocLength : 1;
  return (w.idf * (tf * (w.k1 + 1))) / (tf + w.k1 * (1 - w.b + w.b * relativeLength));
}

/**
 * One term's contribution as a function of (tf, document length), with the idf computed once:
 * the same arithmetic as `bm25Score`, so both give bit-equal scores.
 */
export function bm25TermScorer(
  input: Omit<Bm25TermInput, 'tf' | 'docLength'>,
): (tf: number, docLength: number) => number {
  const w = bm25TermWeights(input);
  return (tf, docLength) => bm25Gain(w, tf, docLength);
}

/** Text → tokens, as `indexTokens` gives them. */
export type Tokenizer = (text: string) => readonly string[];

/**
 * `indexTokens` with the tokens of every text it saw kept, for one batch of documents that repeat
 * texts: a sealed message is indexed with the thread's previous message as context, so without
 * it each message was tokenized twice, and a speaker's name once per message. Keep one per batch:
 * it holds every text given to it.
 */
export function memoTokenizer(seen: Map<string, readonly string[]> = new Map()): MemoTokenizer {
  const tokenizer = (text: string) => {
    let tokens = seen.get(text);
    if (tokens === undefined) {
      tokens = indexTokens(text);
      seen.set(text, tokens);
    }
    return tokens;
  };
  tokenizer.prepare = async (text: string, pause: () => Promise<void>) => {
    if (!seen.has(text)) seen.set(text, await indexTokensAsync(text, pause));
  };
  return tokenizer;
}

/**
 * A memo tokenizer whose texts can be tokenized ahead, pausing between pieces (`prepare`): the
 * documents are then built from the memo without holding the event loop (ADR 0043).
 */
export interface MemoTokenizer extends Tokenizer {
  prepare(text: string, pause: () => Promise<void>): Promise<void>;
}

/** Weighted term frequencies and length of one document (MM-RET-1 field repetition). */
export function docTermFrequencies(
  fields: readonly WeightedField[],
  tokens: Tokenizer = indexTokens,
): {
  terms: Map<string, number>;
  length: number;
} {
  const terms = new Map<string, number>();
  let length = 0;
  for (const field of fields) {
    const repeat = Number.isFinite(field.weight) ? Math.max(0, Math.floor(field.weight)) : 0;
    if (repeat === 0) continue;
    for (const token of field.kind === 'time' ? timeFieldTerms(field.text) : tokens(field.text)) {
      terms.set(token, (terms.get(token) ?? 0) + repeat);
      length += repeat;
    }
  }
  return { terms, length };
}

/** Unique query terms in first-seen order (plain BM25: every word counts, with its stem). */
export function queryTerms(query: string): string[] {
  return [...new Set(indexTokens(query))];
}

export interface SearchTermOptions {
  /** The caller's date (ISO), for the relative periods of a query ("last week", "yesterday"). */
  today?: string;
}

/**
 * Query analysis for search:
 * - the query's words without English function words (`QUERY_STOP_WORDS`), so a question
 *   matches what it asks about rather than every other question in a conversation, each with its
 *   stem; a query made only of function words keeps them all: it is still a lexical query,
 *   answered by what matches it (or nothing), never a browse;
 * - its Han bigrams;
 * - the `time:` terms of the dates, months, years and periods it names (`queryTimeTerms`).
 * Documents are indexed whole; only the query side is analysed.
 */
export function searchTerms(query: string, options: SearchTermOptions = {}): string[] {
  const key = `${options.today ?? ''}|${query}`;
  const known = recentQueries.get(key);
  if (known) return [...known];
  const tokens = tokenize(query);
  const isStop = (t: string) => t.startsWith('word:') && QUERY_STOP_WORDS.has(t.slice(5));
  const content = tokens.filter((t) => !isStop(t));
  const terms = new Set<string>();
  for (const token of content.length > 0 ? content : tokens) {
    terms.add(token);
    const stemmed = stemTerm(token);
    if (stemmed !== null) terms.add(stemmed);
  }
  for (const term of queryTimeTerms(query, options.today)) terms.add(term);
  const analysed = [...terms];
  if (query.length <= MAX_REMEMBERED_QUERY) {
    recentQueries.set(key, analysed);
    if (recentQueries.size > REMEMBERED_QUERIES) {
      recentQueries.delete(recentQueries.keys().next().value!);
    }
  }
  return [...analysed];
}

/**
 * The analysed terms of recent queries: one request analyses its query several times (each event
 * pool, the graph, the index), and segmenting was a tenth of a recall's allocations.
 */
const recentQueries = new Map<string, readonly string[]>();
const REMEMBERED_QUERIES = 64;
const MAX_REMEMBERED_QUERY = 8192;

/** Ranks `docs` for `query`: scores > 0 only, best first, ties by id; no query term → []. */
export function bm25Rank(
  query: string,
  docs: readonly Bm25Doc[],
  options: Bm25Options = {},
): RankedId[] {
  const terms = searchTerms(query, options.today === undefined ? {} : { today: options.today });
  if (terms.length === 0 || docs.length === 0) return [];
  const k1 = options.k1 ?? BM25_K1;
  const b = options.b ?? BM25_B;
  const indexed = docs.map((doc) => ({ id: doc.id, ...docTermFrequencies(doc.fields) }));
  const N = indexed.length;
  const avgDocLength = indexed.reduce((sum, d) => sum + d.length, 0) / N;
  const df = new Map<string, number>();
  for (const term of terms) {
    df.set(term, indexed.filter((d) => d.terms.has(term)).length);
  }
  const ranked: RankedId[] = [];
  for (const doc of indexed) {
    let score = 0;
    for (const term of terms) {
      const tf = doc.terms.get(term) ?? 0;
      const termDf = df.get(term) ?? 0;
      score += bm25Score({ tf, docLength: doc.length, avgDocLength, df: termDf, N, k1, b });
    }
    if (score > 0) ranked.push({ id: doc.id, score });
  }
  return ranked.sort(byScoreThenId);
}

export function byScoreThenId(a: RankedId, b: RankedId): number {
  if (a.score !== b.score) return b.score - a.score;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
