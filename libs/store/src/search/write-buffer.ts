import { AsyncLocalStorage } from 'node:async_hooks';
import { sql } from 'kysely';
import type { AnyDb } from '../database.ts';
import { editPostings } from './edit-postings.ts';
import {
  SEARCH_STATUS_CODES,
  chunkOf,
  encodePostings,
  type PackedPosting,
} from './packed-postings.ts';
import type { SearchDocKind, SearchSpace } from './tables.ts';

/**
 * The search index's write buffer (ADR 0044): within a projection batch, writing documents and
 * moving their statuses change `search_docs` at once, while what those changes do to the
 * postings, `search_terms` and `search_stats` is gathered here and written once at the end of the
 * batch, one statement per table and kind, each chunk and term row touched once. Per record, the
 * hot terms of a space were rewritten by every extraction; per batch, once.
 *
 * The result equals applying each change in turn: document counts and lengths add up, the bounds
 * of a term bucket are the greatest and least over the documents that entered it, and entries of
 * a chunk keep document-number order. Anything that reads those tables, or removes documents
 * (`replaceSearchDocs`), flushes first.
 */
interface TermDelta {
  term: string;
  status: string;
  df: number;
  /** Bounds of the documents that entered the bucket (null when none did). */
  maxTf: number | null;
  min: number | null;
}

interface KindBuffer {
  space: SearchSpace;
  kind: SearchDocKind;
  /** Entries of documents written in this batch, not in any chunk yet, by document number. */
  appended: Map<number, { terms: string[]; tfs: number[]; length: number; status: number }>;
  /** New status codes of documents already in chunks, with their terms. */
  edited: Map<number, { terms: string[]; status: number }>;
  terms: Map<string, TermDelta>;
  stats: Map<string, { count: number; length: number }>;
}

interface Buffer {
  db: AnyDb;
  schema: string;
  kinds: Map<string, KindBuffer>;
}

const current = new AsyncLocalStorage<Buffer>();

/**
 * Off: every change is written at once, as before ADR 0044 (the rebuild bench compares the two
 * in one run).
 */
export const searchWriteBuffering = { enabled: true };

/**
 * Runs `fn` with the search index writes of `schema` on `db` (a transaction) buffered, and
 * flushes them after it returns, in the same transaction.
 */
export async function withSearchWriteBuffer<T>(
  db: AnyDb,
  schema: string,
  fn: () => Promise<T>,
): Promise<T> {
  if (!searchWriteBuffering.enabled) return fn();
  const buffer: Buffer = { db, schema, kinds: new Map() };
  const out = await current.run(buffer, fn);
  await flush(buffer);
  return out;
}

/** The active buffer for writes to `schema`, if any. */
export function searchWriteBuffer(schema: string): Buffer | undefined {
  const b = current.getStore();
  return b?.schema === schema ? b : undefined;
}

/** Writes what the active buffer of `schema` holds (before a read of the index's tables). */
export async function flushSearchWrites(schema: string): Promise<void> {
  const b = searchWriteBuffer(schema);
  if (b) await flush(b);
}

function kindBuffer(b: Buffer, space: SearchSpace, kind: SearchDocKind): KindBuffer {
  const key = JSON.stringify([space.tenantId, space.spaceId, kind]);
  let k = b.kinds.get(key);
  if (!k) {
    k = { space, kind, appended: new Map(), edited: new Map(), terms: new Map(), stats: new Map() };
    b.kinds.set(key, k);
  }
  return k;
}

function addTerm(
  k: KindBuffer,
  term: string,
  status: string,
  df: number,
  tf?: number,
  len?: number,
) {
  const key = `${term}\u0000${status}`;
  let d = k.terms.get(key);
  if (!d) {
    d = { term, status, df: 0, maxTf: null, min: null };
    k.terms.set(key, d);
  }
  d.df += df;
  if (tf !== undefined && len !== undefined) {
    d.maxTf = d.maxTf === null ? tf : Math.max(d.maxTf, tf);
    const ratio = len / tf;
    d.min = d.min === null ? ratio : Math.min(d.min, ratio);
  }
}

function addStats(k: KindBuffer, status: string, count: number, length: number) {
  const s = k.stats.get(status) ?? { count: 0, length: 0 };
  s.count += count;
  s.length += length;
  k.stats.set(status, s);
}

/** Documents just inserted into `search_docs`: their postings and counts, buffered. */
export function bufferInsertedDocs(
  b: Buffer,
  space: SearchSpace,
  kind: SearchDocKind,
  docs: readonly {
    doc_no: number;
    length: number;
    status: string;
    terms: string[];
    tfs: number[];
  }[],
): void {
  const k = kindBuffer(b, space, kind);
  for (const d of docs) {
    const status = SEARCH_STATUS_CODES.indexOf(d.status);
    k.appended.set(d.doc_no, { terms: d.terms, tfs: d.tfs, length: d.length, status });
    d.terms.forEach((term, i) => addTerm(k, term, d.status, 1, d.tfs[i]!, d.length));
    addStats(k, d.status, 1, d.length);
  }
}

/** Documents whose status changed in `search_docs`: their postings and counts move, buffered. */
export function bufferStatusChanges(
  b: Buffer,
  space: SearchSpace,
  kind: SearchDocKind,
  status: string,
  docs: readonly {
    old_status: string;
    doc_no: number;
    length: number;
    terms: string[];
    tfs: number[];
  }[],
): void {
  const k = kindBuffer(b, space, kind);
  const code = SEARCH_STATUS_CODES.indexOf(status);
  for (const d of docs) {
    d.terms.forEach((term, i) => {
      addTerm(k, term, d.old_status, -1);
      addTerm(k, term, status, 1, d.tfs[i]!, d.length);
    });
    addStats(k, d.old_status, -1, -d.length);
    addStats(k, status, 1, d.length);
    const pending = k.appended.get(d.doc_no);
    if (pending) pending.status = code;
    else k.edited.set(d.doc_no, { terms: d.terms, status: code });
  }
}

const byTermChunk = (a: { term: string; chunk: number }, b: { term: string; chunk: number }) =>
  a.term < b.term ? -1 : a.term > b.term ? 1 : a.chunk - b.chunk;

async function flush(b: Buffer): Promise<void> {
  const kinds = [...b.kinds.values()];
  b.kinds.clear();
  for (const k of kinds) await flushKind(b.db, b.schema, k);
}

async function flushKind(db: AnyDb, schema: string, k: KindBuffer): Promise<void> {
  const { tenantId, spaceId } = k.space;
  const kind = k.kind;
  const key = sql`tenant_id = ${tenantId} and space_id = ${spaceId} and doc_kind = ${kind}`;
  const chunksTable = sql.id(schema, 'search_posting_chunks');
  if (k.appended.size > 0 || k.edited.size > 0) {
    // One new index version for the chunks this batch writes (ADR 0018); the counter row is
    // locked first, as every writer of the index does.
    const v = await sql<{ version: number }>`
      update ${sql.id(schema, 'search_doc_numbers')} set version = version + 1
      where ${key} returning version::float8 as version`.execute(db);
    const version = Number(v.rows[0]?.version ?? 0);
    if (k.edited.size > 0) {
      const docs = [...k.edited].map(([docNo, d]) => ({ doc_no: docNo, terms: d.terms }));
      await editPostings(db, schema, k.space, kind, docs, version, (p) => ({
        ...p,
        status: k.edited.get(p.docNo)!.status,
      }));
    }
    if (k.appended.size > 0) {
      const entries = new Map<string, { term: string; chunk: number; postings: PackedPosting[] }>();
      const docNos = [...k.appended.keys()].sort((a, c) => a - c);
      for (const docNo of docNos) {
        const d = k.appended.get(docNo)!;
        d.terms.forEach((term, i) => {
          const chunk = chunkOf(docNo);
          const at = `${chunk}|${term}`;
          let e = entries.get(at);
          if (!e) {
            e = { term, chunk, postings: [] };
            entries.set(at, e);
          }
          e.postings.push({ docNo, tf: d.tfs[i]!, length: d.length, status: d.status });
        });
      }
      const rows = [...entries.values()].sort(byTermChunk).map((e) => ({
        term: e.term,
        chunk: e.chunk,
        hex: Buffer.from(encodePostings(e.postings)).toString('hex'),
      }));
      await sql`
        insert into ${chunksTable} as c (tenant_id, space_id, doc_kind, term, chunk, data, version)
        select ${tenantId}, ${spaceId}, ${kind}, x.term, x.chunk, decode(x.hex, 'hex'), ${version}
        from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(term text, chunk int, hex text)
        on conflict (tenant_id, space_id, doc_kind, term, chunk) do update set
          data = c.data || excluded.data, version = excluded.version`.execute(db);
    }
  }
  const deltas = [...k.terms.values()].sort((a, c) =>
    a.term < c.term
      ? -1
      : a.term > c.term
        ? 1
        : a.status < c.status
          ? -1
          : a.status > c.status
            ? 1
            : 0,
  );
  const entered = deltas.filter((d) => d.maxTf !== null);
  const left = deltas.filter((d) => d.maxTf === null && d.df !== 0);
  if (entered.length > 0) {
    await sql`
      insert into ${sql.id(schema, 'search_terms')} as t
        (tenant_id, space_id, doc_kind, term, status, df, max_tf, min_length_per_tf)
      select ${tenantId}, ${spaceId}, ${kind}, x.term, x.status, x.df, x.max_tf, x.min
      from jsonb_to_recordset(${JSON.stringify(
        entered.map((d) => ({
          term: d.term,
          status: d.status,
          df: d.df,
          max_tf: d.maxTf,
          min: d.min,
        })),
      )}::jsonb) as x(term text, status text, df int, max_tf int, min float8)
      on conflict (tenant_id, space_id, doc_kind, term, status) do update set
        df = t.df + excluded.df,
        max_tf = greatest(t.max_tf, excluded.max_tf),
        min_length_per_tf = least(t.min_length_per_tf, excluded.min_length_per_tf)`.execute(db);
  }
  if (left.length > 0) {
    // Buckets documents only left: their rows exist (the documents were counted in them).
    await sql`
      update ${sql.id(schema, 'search_terms')} as t set df = t.df + x.df
      from jsonb_to_recordset(${JSON.stringify(
        left.map((d) => ({ term: d.term, status: d.status, df: d.df })),
      )}::jsonb) as x(term text, status text, df int)
      where t.tenant_id = ${tenantId} and t.space_id = ${spaceId} and t.doc_kind = ${kind}
        and t.term = x.term and t.status = x.status`.execute(db);
  }
  if (k.stats.size > 0) {
    const stats = [...k.stats.entries()]
      .sort(([a], [c]) => (a < c ? -1 : a > c ? 1 : 0))
      .map(([status, s]) => ({ status, n: s.count, len: s.length }));
    await sql`
      insert into ${sql.id(schema, 'search_stats')} as s
        (tenant_id, space_id, doc_kind, status, doc_count, total_length)
      select ${tenantId}, ${spaceId}, ${kind}, x.status, x.n, x.len
      from jsonb_to_recordset(${JSON.stringify(stats)}::jsonb) as x(status text, n bigint, len bigint)
      on conflict (tenant_id, space_id, doc_kind, status) do update set
        doc_count = s.doc_count + excluded.doc_count,
        total_length = s.total_length + excluded.total_length`.execute(db);
  }
}
