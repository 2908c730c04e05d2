/**
 * The search index (MM-RET-1/2/6, issue 4): postings in the read-model schema, maintained by the
 * projector, so that a query reads only the postings of its own terms.
 *
 * - `search_docs`: one row per indexed document (a sealed L5 message, a memory event, or a visible
 *   knowledge-graph node) with its weighted length (MM-RET-1 field repetition), what scope filters
 *   need, and its number (`doc_no`, unique per (tenant, space, kind), never reused; numbers come
 *   from `search_doc_numbers`).
 * - `search_posting_chunks`: the postings packed as bytes, one row per term and range of document
 *   numbers (ADR 0017, `packed-postings.ts`). An entry carries the document's number, the
 *   weighted term frequency (`docTermFrequencies`), and a copy of the document's length and status
 *   (kept in step by the status moves), so the postings of a term give each document's exact
 *   contribution and the status filter directly. Each chunk carries the index version of the
 *   write that last changed it, and a chunk a write empties stays, empty, so a query process's
 *   cache learns of every change (ADR 0018).
 * - `search_postings`: a view of the packed postings one row each, by document id (dumps,
 *   inspection and tests; queries read the chunks).
 * - `search_stats`: document count and total length per (tenant, space, kind, status), kept exact
 *   by the maintenance functions, so an unscoped query needs no pass over the documents.
 * - `search_terms`: per (term, status) the exact document frequency, and the largest term
 *   frequency and smallest length per occurrence among its postings (bounds: a status move or a
 *   removal leaves them as they were, which can only loosen them). With them an unscoped query
 *   knows every term's idf and the most any one document can get from the term without reading
 *   its postings, which lets it skip documents that cannot reach the top k (MaxScore; ADR 0013).
 * - The document row also carries its term vector (`terms`, `tfs`, sorted by term), so a
 *   candidate is completed on the terms not read with one primary-key read.
 *
 * Status changes keep the postings and move the document between status buckets; queries filter
 * by status (events default to active + superseded: forgotten and archived never appear).
 * A graph node's document (kind `node`, MM-RET-5) is a function of its effective view (MM-GRF-8),
 * which changes with its facts, edges and source events, so the projector replaces it whole
 * (`replaceSearchDocs`); only visible nodes (active or disputed) are indexed.
 */
export type SearchDocKind = 'message' | 'event' | 'agent_event' | 'node';

/** Doc kind of a memory event by pool: each pool is ranked on its own (MM-RET-3). */
export function eventDocKind(pool: 'extracted' | 'agent'): SearchDocKind {
  return pool === 'agent' ? 'agent_event' : 'event';
}

/** Status of every indexed message: raw search covers sealed L5 messages only. */
export const SEALED_MESSAGE_STATUS = 'sealed';

/** Event statuses that are search candidates (MM-RET-3/4). */
export const SEARCHABLE_EVENT_STATUSES: readonly string[] = ['active', 'superseded'];

/** Graph node statuses that are search candidates (MM-RET-5, MM-GRF-8 visible nodes). */
export const SEARCHABLE_NODE_STATUSES: readonly string[] = ['active', 'disputed'];

export interface SearchSpace {
  tenantId: string;
  spaceId: string;
}

export interface SearchDocRow {
  tenant_id: string;
  space_id: string;
  doc_kind: SearchDocKind;
  doc_id: string;
  /** The document's number: where its postings are in the chunks (ADR 0017). */
  doc_no: number;
  thread_id: string | null;
  block_id: string | null;
  length: number;
  created_at: string;
  status: string;
  /** The document's terms, sorted; `tfs[i]` is the term frequency of `terms[i]` (> 0). */
  terms: string[];
  tfs: number[];
}

/** A row of the `search_postings` view: one posting, decoded from its chunk. */
export interface SearchPostingRow {
  tenant_id: string;
  space_id: string;
  doc_kind: SearchDocKind;
  term: string;
  doc_id: string;
  tf: number;
  /** The document's length and status, copied so a posting alone gives its exact score. */
  length: number;
  status: string;
}

/** Packed postings of one term for the document numbers [chunk·512, (chunk+1)·512). */
export interface SearchPostingChunkRow {
  tenant_id: string;
  space_id: string;
  doc_kind: SearchDocKind;
  term: string;
  chunk: number;
  data: Uint8Array;
  /** The index version of the write that last changed this chunk (ADR 0018). */
  version: number;
}

/** The next document number of a (tenant, space, kind). */
export interface SearchDocNumberRow {
  tenant_id: string;
  space_id: string;
  doc_kind: SearchDocKind;
  next_no: number;
  /** The last index version taken by a write (ADR 0018). */
  version: number;
  /** Random when the row is created: tells a rebuilt index from the one a cache read. */
  epoch: string;
}

export interface SearchStatRow {
  tenant_id: string;
  space_id: string;
  doc_kind: SearchDocKind;
  status: string;
  doc_count: number;
  total_length: number;
}

export interface SearchTermRow {
  tenant_id: string;
  space_id: string;
  doc_kind: SearchDocKind;
  term: string;
  status: string;
  /** Documents of this status containing the term (exact). */
  df: number;
  /** ≥ every posting's tf of this (term, status) (exact after inserts only). */
  max_tf: number;
  /**
   * ≤ length / tf of every posting of this (term, status) (exact after inserts only). With
   * `max_tf` it bounds the term's score in any one document: BM25 is
   * idf·(k1+1) / (1 + k1(1−b)/tf + k1·b·(length/tf)/avgdl), which grows with tf and falls with
   * length/tf.
   */
  min_length_per_tf: number;
}

export interface SearchIndexTables {
  search_docs: SearchDocRow;
  search_postings: SearchPostingRow;
  search_posting_chunks: SearchPostingChunkRow;
  search_doc_numbers: SearchDocNumberRow;
  search_stats: SearchStatRow;
  search_terms: SearchTermRow;
}

/**
 * Tables in dump order with their key columns (same shape as READ_MODEL_TABLES). The postings are
 * dumped through the `search_postings` view, and document numbers (`DUMP_OMITTED_COLUMNS`) are
 * left out: they depend on the order in which writers got their numbers (racing lane slices, a
 * migrated schema), while the index they describe is the same.
 */
export const SEARCH_INDEX_TABLES: Record<
  Exclude<keyof SearchIndexTables, 'search_posting_chunks' | 'search_doc_numbers'>,
  string[]
> = {
  search_docs: ['tenant_id', 'space_id', 'doc_kind', 'doc_id'],
  search_postings: ['tenant_id', 'space_id', 'doc_kind', 'term', 'doc_id'],
  search_stats: ['tenant_id', 'space_id', 'doc_kind', 'status'],
  search_terms: ['tenant_id', 'space_id', 'doc_kind', 'term', 'status'],
};

/** Columns left out of read-model dumps (see SEARCH_INDEX_TABLES). */
export const DUMP_OMITTED_COLUMNS: readonly string[] = ['applied_position', 'doc_no'];
