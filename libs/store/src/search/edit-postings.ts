import { sql } from 'kysely';
import type { AnyDb } from '../database.ts';
import { chunkOf, decodePostings, encodePostings, type PackedPosting } from './packed-postings.ts';
import type { SearchDocKind, SearchSpace } from './tables.ts';

/** A document whose postings are edited: its number and its terms. */
export interface NumberedDoc {
  doc_no: number;
  terms: string[];
}

/**
 * Rewrites the entries of `docs` in the chunks that hold them: `edit` returns the new entry, or
 * null to remove it. Every chunk written carries `version`. A chunk left empty is kept, empty.
 * Chunks are read and written in (term, chunk) order, one statement each way.
 */
export async function editPostings(
  db: AnyDb,
  schema: string,
  space: SearchSpace,
  kind: SearchDocKind,
  docs: readonly NumberedDoc[],
  version: number,
  edit: (posting: PackedPosting) => PackedPosting | null,
): Promise<void> {
  const targets = new Set(docs.map((d) => d.doc_no));
  const keys = new Map<string, { term: string; chunk: number }>();
  for (const doc of docs) {
    for (const term of doc.terms) {
      const chunk = chunkOf(doc.doc_no);
      keys.set(`${chunk}|${term}`, { term, chunk });
    }
  }
  if (keys.size === 0) return;
  const ordered = [...keys.values()].sort((a, b) =>
    a.term < b.term ? -1 : a.term > b.term ? 1 : a.chunk - b.chunk,
  );
  const table = sql.id(schema, 'search_posting_chunks');
  const key = sql`c.tenant_id = ${space.tenantId} and c.space_id = ${space.spaceId}
    and c.doc_kind = ${kind}`;
  // Each chunk by its primary key (a lateral probe per key, in key order): a join let a planner
  // whose statistics did not know the space read every chunk of the kind (ADR 0044).
  const rows = await sql<{ term: string; chunk: number; data: Uint8Array }>`
    select c.term, c.chunk, c.data
    from unnest(${ordered.map((k) => k.term)}::text[], ${ordered.map((k) => k.chunk)}::int[])
      with ordinality as k(term, chunk, n)
    cross join lateral (
      select c.term, c.chunk, c.data from ${table} c
      where ${key} and c.term = k.term and c.chunk = k.chunk
      for update
    ) c
    order by k.n
  `.execute(db);
  const changed: { term: string; chunk: number; hex: string }[] = [];
  for (const row of rows.rows) {
    const postings = decodePostings(row.data);
    const next: PackedPosting[] = [];
    let touched = false;
    for (const p of postings) {
      if (!targets.has(p.docNo)) {
        next.push(p);
        continue;
      }
      touched = true;
      const edited = edit(p);
      if (edited) next.push(edited);
    }
    if (touched) {
      changed.push({
        term: row.term,
        chunk: row.chunk,
        hex: Buffer.from(encodePostings(next)).toString('hex'),
      });
    }
  }
  if (changed.length === 0) return;
  // An emptied chunk stays, empty, with the new version: a cached copy of the term learns of the
  // change like of any other (ADR 0018).
  await sql`
    update ${table} c set data = decode(x.hex, 'hex'), version = ${version}
    from jsonb_to_recordset(${JSON.stringify(changed)}::jsonb) as x(term text, chunk int, hex text)
    where ${key} and c.term = x.term and c.chunk = x.chunk
  `.execute(db);
}
