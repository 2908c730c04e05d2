/**
 * A query process's cache of the search index (ADR 0018): packed postings, validated against the
 * index on every read so that a search never uses a posting the index no longer has, and the
 * documents' numbers, ids and term vectors, which never change.
 *
 * Postings. Every write to a (tenant, space, kind)'s chunks takes the next value of its index
 * version (`search_doc_numbers.version`, bumped under the row lock every writer takes first, so
 * versions follow commit order) and stamps it on each chunk it writes; a chunk emptied by a write
 * stays, empty. A cached term is a snapshot of its chunks that is complete up to a version
 * `since`: every chunk written later has a higher version. A read asks only for the chunks with a
 * higher version (an index on (term, version) finds them without touching the others) and lays
 * them over the snapshot. A snapshot is never changed in place: a read builds a new one, so
 * concurrent searches each keep the one they planned with.
 *
 * Documents. A document number is given once and never reused: replacing a document numbers it
 * anew, and a status move changes only the postings. So a number's id, creation time, length and
 * term vector are the same for as long as the index exists.
 *
 * The counter row also carries an epoch, a random value given when the row is created. Reads
 * return it, and everything cached under another epoch (a dropped and rebuilt index) is dropped.
 */

import {
  assembleColumns,
  COLUMN_ENTRY_BYTES,
  ENTRY_BYTES,
  type PostingColumns,
} from './packed-postings.ts';

/** The (tenant, space, kind) of an index a search reads, plus its schema. */
export interface PostingScope {
  schema: string;
  tenantId: string;
  spaceId: string;
  kind: string;
}

/** A term's chunks as of `since`, decoded. Never mutated once stored. */
export interface TermSnapshot {
  readonly since: number;
  /** The chunks' entries in chunk order, decoded once (what a search scores from). */
  readonly columns: PostingColumns;
  /** Per chunk number (what a newer chunk replaces), its entries' range in `columns`. */
  readonly chunks: ReadonlyMap<number, { start: number; end: number }>;
  readonly bytes: number;
}

/** What a read asks for one term: chunks newer than `since` on top of `base` (-1: no base, all). */
export interface TermRead {
  term: string;
  since: number;
  base: TermSnapshot | undefined;
}

/** A read planned against the cache: the epoch it assumed and what it asks per term. */
export interface PlannedRead {
  scopeKey: string;
  epoch: string | undefined;
  terms: TermRead[];
}

/** A chunk a read returned. */
export interface FetchedChunk {
  chunk: number;
  version: number;
  data: Uint8Array;
}

/** What a document number stands for (all of it fixed for the number's life). */
export interface CachedDoc {
  id: string;
  createdAt: string;
  /** The term vector, once a search completed the document from it. */
  vector?: { length: number; terms: ReadonlyMap<string, number> };
}

export interface PostingCacheStats {
  bytes: number;
  terms: number;
  docs: number;
  /** Terms whose cached chunks were used (with any newer chunks laid over them). */
  hits: number;
  /** Terms read whole (not cached, evicted, or voided by another epoch). */
  misses: number;
  /** Chunks read because they changed after the cached snapshot. */
  refreshedChunks: number;
}

/** Bookkeeping per stored chunk (its map entry and range), in bytes: an estimate. */
const CHUNK_OVERHEAD = 64;
const TERM_OVERHEAD = 160;
const DOC_OVERHEAD = 200;
const VECTOR_ENTRY_BYTES = 48;

type Entry =
  | { scopeKey: string; bytes: number; snapshot: TermSnapshot }
  | { scopeKey: string; bytes: number; doc: CachedDoc };

export class PostingCache {
  private readonly epochs = new Map<string, string>();
  /** Terms and documents; insertion order is recency order (a use moves the entry to the end). */
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  private termCount = 0;
  private readonly counters = { hits: 0, misses: 0, refreshedChunks: 0 };

  /** `maxBytes` 0 stores nothing: every read is whole (the cache off). */
  constructor(readonly maxBytes: number) {}

  static scopeKey(scope: PostingScope): string {
    return [scope.schema, scope.tenantId, scope.spaceId, scope.kind].join('\u0000');
  }

  /** Per term, what to ask the index for (cached terms: only chunks newer than the snapshot). */
  plan(scope: PostingScope, terms: readonly string[]): PlannedRead {
    const scopeKey = PostingCache.scopeKey(scope);
    const epoch = this.epochs.get(scopeKey);
    return {
      scopeKey,
      epoch,
      terms: terms.map((term) => {
        const entry = epoch === undefined ? undefined : this.use(termKey(scopeKey, term));
        const base = entry && 'snapshot' in entry ? entry.snapshot : undefined;
        return { term, since: base?.since ?? -1, base };
      }),
    };
  }

  /**
   * Takes note of the epoch a read returned (null: the index has no counter row, so no
   * documents). Returns false when the read assumed another epoch and asked for some term only
   * what changed since its snapshot: those answers are incomplete and must be read again.
   */
  accept(read: PlannedRead, epoch: string | null): boolean {
    this.observeEpoch(read.scopeKey, epoch);
    return read.epoch === epoch || read.terms.every((t) => t.since < 0);
  }

  /**
   * A term's postings after a read that returned `fetched` (the chunks newer than `term.since`),
   * in chunk order. Stores the new snapshot when it is newer than the stored one.
   */
  merge(
    read: PlannedRead,
    term: TermRead,
    epoch: string | null,
    fetched: readonly FetchedChunk[],
  ): PostingColumns {
    const base = term.since >= 0 ? term.base : undefined;
    if (base) {
      this.counters.hits++;
      if (fetched.length === 0) return base.columns;
      this.counters.refreshedChunks += fetched.length;
    } else {
      this.counters.misses++;
    }
    // The chunk numbers in order; a fetched chunk replaces the snapshot's of the same number.
    const newer = new Map<number, Uint8Array>();
    let since = base?.since ?? -1;
    for (const c of fetched) {
      newer.set(c.chunk, c.data);
      if (c.version > since) since = c.version;
    }
    const numbers = [...new Set([...(base?.chunks.keys() ?? []), ...newer.keys()])].sort(
      (a, b) => a - b,
    );
    const pieces = numbers.map((no) => {
      const data = newer.get(no);
      return data ?? { from: base!.columns, ...base!.chunks.get(no)! };
    });
    const columns = assembleColumns(pieces);
    const chunks = new Map<number, { start: number; end: number }>();
    let at = 0;
    for (let i = 0; i < numbers.length; i++) {
      const piece = pieces[i]!;
      const n = piece instanceof Uint8Array ? piece.length / ENTRY_BYTES : piece.end - piece.start;
      chunks.set(numbers[i]!, { start: at, end: at + n });
      at += n;
    }
    if (numbers.length > 0 && epoch !== null && this.epochs.get(read.scopeKey) === epoch) {
      const bytes =
        TERM_OVERHEAD + columns.count * COLUMN_ENTRY_BYTES + chunks.size * CHUNK_OVERHEAD;
      const key = termKey(read.scopeKey, term.term);
      const old = this.entries.get(key);
      // A read that started earlier can finish later: keep the newer snapshot.
      if (!(old && 'snapshot' in old && old.snapshot.since > since)) {
        this.store(key, {
          scopeKey: read.scopeKey,
          bytes,
          snapshot: { since, columns, chunks, bytes },
        });
      }
    }
    return columns;
  }

  /** The cached documents among `docNos` (of the scope, under `epoch`). */
  docs(
    scope: PostingScope,
    epoch: string | null,
    docNos: readonly number[],
  ): Map<number, CachedDoc> {
    const scopeKey = PostingCache.scopeKey(scope);
    const found = new Map<number, CachedDoc>();
    if (epoch === null || this.epochs.get(scopeKey) !== epoch) return found;
    for (const no of docNos) {
      const entry = this.use(docKey(scopeKey, no));
      if (entry && 'doc' in entry) found.set(no, entry.doc);
    }
    return found;
  }

  /** Keeps what a read found out about a document (ignored under another epoch). */
  rememberDoc(scope: PostingScope, epoch: string | null, docNo: number, doc: CachedDoc): void {
    const scopeKey = PostingCache.scopeKey(scope);
    // Only under the epoch the cache holds now (a read of an older one may finish late).
    if (epoch === null || this.epochs.get(scopeKey) !== epoch) return;
    const key = docKey(scopeKey, docNo);
    const old = this.entries.get(key);
    if (old && 'doc' in old && old.doc.vector && !doc.vector) return;
    let bytes = DOC_OVERHEAD + 2 * (doc.id.length + doc.createdAt.length);
    if (doc.vector) {
      for (const term of doc.vector.terms.keys()) bytes += VECTOR_ENTRY_BYTES + 2 * term.length;
    }
    this.store(key, { scopeKey, bytes, doc });
  }

  /**
   * Drops everything cached of one space, in every schema and kind: after an erasure (ADR 0046)
   * its terms must not stay in this process's memory until they are evicted.
   */
  forgetSpace(tenantId: string, spaceId: string): void {
    const of = (scopeKey: string) => {
      const [, tenant, space] = scopeKey.split('\u0000');
      return tenant === tenantId && space === spaceId;
    };
    for (const [key, entry] of this.entries) if (of(entry.scopeKey)) this.remove(key);
    for (const scopeKey of [...this.epochs.keys()]) if (of(scopeKey)) this.epochs.delete(scopeKey);
  }

  stats(): PostingCacheStats {
    return {
      bytes: this.bytes,
      terms: this.termCount,
      docs: this.entries.size - this.termCount,
      ...this.counters,
    };
  }

  private observeEpoch(scopeKey: string, epoch: string | null): void {
    // A cache that stores nothing needs no epochs either (nor a map growing per space).
    if (this.maxBytes === 0) return;
    const current = this.epochs.get(scopeKey);
    if (current === (epoch ?? undefined)) return;
    if (current !== undefined) {
      for (const [key, entry] of this.entries) if (entry.scopeKey === scopeKey) this.remove(key);
    }
    if (epoch === null) this.epochs.delete(scopeKey);
    else this.epochs.set(scopeKey, epoch);
  }

  private use(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry;
  }

  private store(key: string, entry: Entry): void {
    if (entry.bytes > this.maxBytes) return;
    this.remove(key);
    this.entries.set(key, entry);
    this.bytes += entry.bytes;
    if ('snapshot' in entry) this.termCount++;
    for (const k of this.entries.keys()) {
      if (this.bytes <= this.maxBytes) break;
      this.remove(k);
    }
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
    if ('snapshot' in entry) this.termCount--;
  }
}

const termKey = (scopeKey: string, term: string) => `${scopeKey}\u0000t\u0000${term}`;
const docKey = (scopeKey: string, docNo: number) => `${scopeKey}\u0000d\u0000${docNo}`;

/** A cache that keeps nothing: every read is whole. */
export const NO_POSTING_CACHE = new PostingCache(0);
