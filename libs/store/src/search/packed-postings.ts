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
 * Calls `visit(docNo, tf, length)` for each entry of `data` whose status is in `mask`. The
 * callback form keeps the hot path free of allocations.
 */
export function forEachPosting(
  data: Uint8Array,
  mask: number,
  visit: (docNo: number, tf: number, length: number) => void,
): number {
  checkWhole(data);
  let n = 0;
  for (let o = 0; o < data.length; o += ENTRY_BYTES) {
    if (((1 << data[o + 12]!) & mask) === 0) continue;
    visit(int32At(data, o), int32At(data, o + 4), int32At(data, o + 8));
    n++;
  }
  return n;
}

/**
 * Adds `gain(tf, length)` to the board's score of each entry of `data` whose status is in `mask`
 * and whose number is below the board's limit, noting numbers seen for the first time. Returns
 * the number of entries added. The hot loop of a search: no allocation and no callback per entry
 * beyond `gain`.
 */
export function accumulatePostings(
  data: Uint8Array,
  mask: number,
  gain: (tf: number, length: number) => number,
  board: ScoreBoard,
): number {
  checkWhole(data);
  const { scores, isSeen, seen, limit } = board;
  let count = board.count;
  let n = 0;
  // Big-endian int32s read from the bytes directly: a DataView per chunk was an allocation per
  // chunk per search, thousands for a recall (ADR 0018).
  for (let o = 0; o < data.length; o += ENTRY_BYTES) {
    if (((1 << data[o + 12]!) & mask) === 0) continue;
    const docNo = int32At(data, o);
    if (docNo >= limit) continue;
    if (isSeen[docNo] === 0) {
      isSeen[docNo] = 1;
      seen[count++] = docNo;
    }
    scores[docNo] = scores[docNo]! + gain(int32At(data, o + 4), int32At(data, o + 8));
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
