import { sql, type RawBuilder } from 'kysely';
import { BM25_B, BM25_K1, searchTerms, type RankedId } from '@stratagate/domain';
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
}

/**
 * BM25 (MM-RET-2, k1 1.2, b 0.75) over the postings of the query's distinct terms, in one SQL
 * statement. Scope (thread, documents, statuses) is applied before ranking, and N, df and avgdl are
 * taken over the scoped set, so the result equals `bm25Rank` run exhaustively over exactly those
 * documents. The unscoped case takes N and the total length from `search_stats`; a scoped case
 * counts them in SQL over the scoped documents. Only scores > 0; ties: messages newer
 * `created_at` first then id, events and graph nodes by id. An empty query, or one with no lexical
 * match, → [].
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

  const { tenantId, spaceId } = q.space;
  const docs = sql.id(schema, 'search_docs');
  const postings = sql.id(schema, 'search_postings');
  const statsTable = sql.id(schema, 'search_stats');
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
  const scoped = q.threadId !== undefined || q.docIds !== undefined;

  const stats = scoped
    ? sql`select count(*)::float8 as n, coalesce(sum(d.length), 0)::float8 as total
          from ${docs} d
          where d.tenant_id = ${tenantId} and d.space_id = ${spaceId} and d.doc_kind = ${q.kind}
          ${docFilter}`
    : sql`select coalesce(sum(s.doc_count), 0)::float8 as n,
                 coalesce(sum(s.total_length), 0)::float8 as total
          from ${statsTable} s
          where s.tenant_id = ${tenantId} and s.space_id = ${spaceId} and s.doc_kind = ${q.kind}
          ${statuses ? sql`and s.status in (${list(statuses)})` : sql``}`;

  const k1 = sql`${BM25_K1}::float8`;
  const b = sql`${BM25_B}::float8`;
  const tieBreak = q.kind === 'message' ? sql`created_at desc, doc_id asc` : sql`doc_id asc`;

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
