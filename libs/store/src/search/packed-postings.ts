/**
 * Packed postings (ADR 0017): a term's postings are stored as byte strings, one row per term and
 * range of document numbers, instead of one row per (term, document). A query reads a few rows
 * per term and decodes them here, which costs a small fraction of what a row per posting cost
 * through the executor and the driver.
 *
 * Every indexed document has a number (`search_docs.doc_no`), unique per (tenant, space, kind)
 * and never reused. Chunk `c` of a term holds the postings of the documents numbered
 * [c·CHUNK_DOCS, (c+1)·CHUNK_DOCS), so which row holds a document's posting follows from its
 * number. An entry is ENTRY_BYTES bytes, big-endian (what Postgres' `int4send` writes):
 *
 *   doc_no int32 | tf int32 | length int32 | status code uint8
 *
 * It carries the document's length and status, as the posting rows did, so a posting alone gives
 * its exact score and whether the status filter keeps it. Entries of a chunk are in the order they
 * were appended (document number order, unless two writers interleaved); readers do not rely on it.
 */

import { bm25Gain, type Bm25TermWeights } from '@stratagate/domain';
import type { ScoreBoard } from './score-board.ts';

/** log2 of the document numbers per chunk. */
export const CHUNK_SHIFT = 9;
/** Document numbers per chunk: at most 512 entries, 6,656 bytes, kept inline in the row. */
export const CHUNK_DOCS = 1 << CHUNK_SHIFT;
export const ENTRY_BYTES = 13;

/**
 * The statuses an indexed document can have, by code (the entry's last byte). Appending a status
 * is compatible; reordering is not (stored entries would change meaning).
 */
export const SEARCH_STATUS_CODES: readonly string[] = [
  'sealed',
  'active',
  'superseded',
  'disputed',
  'forgotten',
  'archived',
];

/** The code of `status`; throws for a status the index cannot store. */
export function searchStatusCode(status: string): number {
  const code = SEARCH_STATUS_CODES.indexOf(status);
  if (code < 0) throw new Error(`search index: unknown document status '${status}'`);
  return code;
}

/** A mask of the codes of `statuses` (undefined: every status); unknown statuses match nothing. */
export function statusMask(statuses: readonly string[] | undefined): number {
  if (!statuses) return 0xff;
  let mask = 0;
  for (const s of statuses) {
    const code = SEARCH_STATUS_CODES.indexOf(s);
    if (code >= 0) mask |= 1 << code;
  }
  return mask;
}

export interface PackedPosting {
  docNo: number;
  tf: number;
  length: number;
  status: number;
}

/** The chunk that holds document `docNo`'s postings. */
export const chunkOf = (docNo: number): number => docNo >>> CHUNK_SHIFT;

function checkWhole(data: Uint8Array): void {
  if (data.length % ENTRY_BYTES !== 0) {
    throw new Error(`search index: a postings chunk of ${data.length} bytes is not whole entries`);
  }
}

function view(data: Uint8Array): DataView {
  checkWhole(data);
  return new DataView(data.buffer, data.byteOffset, data.byteLength);
}

/**
 * A term's postings decoded into columns, in chunk order: what a search scores from. Decoding
 * once (the query process's cache keeps the columns, ADR 0018) makes the scoring loop a pass over
 * typed arrays instead of reading the big-endian bytes on every search. A scratch
 * micro-benchmark (30 terms, 90k postings) scored in a median of 1.5 ms against 2.0–3.2 ms. The
 * columns take the same 13 bytes per entry as the packed form.
 */
export interface PostingColumns {
  readonly count: number;
  readonly docNos: Int32Array;
  readonly tfs: Int32Array;
  readonly lengths: Int32Array;
  readonly statuses: Uint8Array;
}

/** Bytes per decoded entry (three int32 and one status byte). */
export const COLUMN_ENTRY_BYTES = 13;

export const NO_POSTINGS: PostingColumns = emptyColumns(0);

function emptyColumns(count: number): PostingColumns {
  return {
    count,
    docNos: new Int32Array(count),
    tfs: new Int32Array(count),
    lengths: new Int32Array(count),
    statuses: new Uint8Array(count),
  };
}

/** The entries of `chunks` (packed bytes), in the order given, as columns. */
export function decodeColumns(chunks: readonly Uint8Array[]): PostingColumns {
  let count = 0;
  for (const data of chunks) {
    checkWhole(data);
    count += data.length / ENTRY_BYTES;
  }
  const out = emptyColumns(count);
  let at = 0;
  for (const data of chunks) at = decodeInto(out, at, data);
  return out;
}

/**
 * Columns built from pieces in order: ranges of existing columns (kept) and packed chunks
 * (decoded). What the cache does when newer chunks replace some of a snapshot's.
 */
export function assembleColumns(
  pieces: readonly ({ from: PostingColumns; start: number; end: number } | Uint8Array)[],
): PostingColumns {
  let count = 0;
  for (const piece of pieces) {
    if (piece instanceof Uint8Array) {
      checkWhole(piece);
      count += piece.length / ENTRY_BYTES;
    } else count += piece.end - piece.start;
  }
  const out = emptyColumns(count);
  let at = 0;
  for (const piece of pieces) {
    if (piece instanceof Uint8Array) {
      at = decodeInto(out, at, piece);
      continue;
    }
    const { from, start, end } = piece;
    out.docNos.set(from.docNos.subarray(start, end), at);
    out.tfs.set(from.tfs.subarray(start, end), at);
    out.lengths.set(from.lengths.subarray(start, end), at);
    out.statuses.set(from.statuses.subarray(start, end), at);
    at += end - start;
  }
  return out;
}

function decodeInto(out: PostingColumns, at: number, data: Uint8Array): number {
  for (let o = 0; o < data.length; o += ENTRY_BYTES) {
    out.docNos[at] = int32At(data, o);
    out.tfs[at] = int32At(data, o + 4);
    out.lengths[at] = int32At(data, o + 8);
    out.statuses[at] = data[o + 12]!;
    at++;
  }
  return at;
}

/**
 * Calls `visit(docNo, tf, length)` for each entry whose status is in `mask`. The callback form
 * keeps the hot path free of allocations.
 */
export function forEachPosting(
  columns: PostingColumns,
  mask: number,
  visit: (docNo: number, tf: number, length: number) => void,
): number {
  const { count, docNos, tfs, lengths, statuses } = columns;
  let n = 0;
  for (let i = 0; i < count; i++) {
    if (((1 << statuses[i]!) & mask) === 0) continue;
    visit(docNos[i]!, tfs[i]!, lengths[i]!);
    n++;
  }
  return n;
}

/**
 * Adds the term's BM25 gain (`bm25Gain(weights, tf, length)`) to the board's score of each entry
 * whose status is in `mask` and whose number is below the board's limit, noting numbers seen for
 * the first time. Returns the number of entries added. The hot loop of a search: typed arrays
 * only, and one plain function for the gain rather than a closure per term.
 */
export function accumulatePostings(
  columns: PostingColumns,
  mask: number,
  weights: Bm25TermWeights,
  board: ScoreBoard,
): number {
  const { scores, isSeen, seen, limit } = board;
  const { count: entries, docNos, tfs, lengths, statuses } = columns;
  let count = board.count;
  let n = 0;
  for (let i = 0; i < entries; i++) {
    if (((1 << statuses[i]!) & mask) === 0) continue;
    const docNo = docNos[i]!;
    if (docNo >= limit) continue;
    if (isSeen[docNo] === 0) {
      isSeen[docNo] = 1;
      seen[count++] = docNo;
    }
    scores[docNo] = scores[docNo]! + bm25Gain(weights, tfs[i]!, lengths[i]!);
    n++;
  }
  board.count = count;
  return n;
}

/** The big-endian int32 at `o` (what `int4send` writes). */
function int32At(data: Uint8Array, o: number): number {
  return (data[o]! << 24) | (data[o + 1]! << 16) | (data[o + 2]! << 8) | data[o + 3]!;
}

/** Every entry of `data`. */
export function decodePostings(data: Uint8Array): PackedPosting[] {
  const v = view(data);
  const out: PackedPosting[] = [];
  for (let o = 0; o < data.length; o += ENTRY_BYTES) {
    out.push({
      docNo: v.getInt32(o),
      tf: v.getInt32(o + 4),
      length: v.getInt32(o + 8),
      status: v.getUint8(o + 12),
    });
  }
  return out;
}

/** `postings` as one chunk's bytes, in the order given. */
export function encodePostings(postings: readonly PackedPosting[]): Uint8Array {
  const out = new Uint8Array(postings.length * ENTRY_BYTES);
  const v = new DataView(out.buffer);
  postings.forEach((p, i) => {
    const o = i * ENTRY_BYTES;
    v.setInt32(o, p.docNo);
    v.setInt32(o + 4, p.tf);
    v.setInt32(o + 8, p.length);
    v.setUint8(o + 12, p.status);
  });
  return out;
}

/**
 * The SQL expression (over columns `doc_no`, `tf`, `length`, `status_code` in scope) that encodes
 * one entry exactly as `encodePostings` does.
 */
export const ENTRY_SQL =
  "int4send(doc_no) || int4send(tf) || int4send(length) || set_byte('\\x00'::bytea, 0, status_code)";
