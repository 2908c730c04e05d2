import { sql } from 'kysely';
import type { AnyDb } from '../database.ts';
import { assertSchemaName } from './migrate.ts';

/**
 * Planner statistics for the read model (and the log, ADR 0029), kept by the projector itself.
 *
 * Every read-model key starts with `(tenant_id, space_id[, doc_kind])`. Without statistics the
 * planner takes 0.5 % per equality for each of those columns, so it believes the prefix alone
 * selects about one row, scans an index by the prefix only and filters the real key (`doc_id`,
 * `turn_id`, …) row by row: every look-up reads the whole space, and a join of two such scans
 * reads it squared (the projection stall at ~31,500 records on Postgres, seconds per request on
 * PGlite). PGlite runs no autovacuum, and a server may have it off or lagging behind a bulk
 * projection, so the projector analyses the tables that grew.
 *
 * A table is analysed when it has grown by half since its last ANALYZE (by pages on disk, which
 * needs no statistics collector and sees the current transaction's own writes), or was never
 * analysed, once it has more than a few pages. ANALYZE samples at most 300 × the statistics
 * target rows, so the cost per table is bounded and the total is a geometric series in the
 * table's final size. It runs inside the caller's transaction (ANALYZE may; its sample includes
 * that transaction's own rows) and changes no row, so replay and rebuild comparisons are
 * unaffected.
 */
export interface AnalyzeOptions {
  /** Analyse a table once its pages exceed `growth` × the pages at its last ANALYZE (1.5). */
  growth?: number;
  /** Tables up to this many pages are never analysed for growth alone (8 pages = 64 KiB). */
  minPages?: number;
}

/** Tables analysed by the last call, with their page counts (for logs and tests). */
export interface AnalyzeOutcome {
  analysed: { table: string; pages: number; pagesBefore: number }[];
}

/** Each table of `schema` with its pages on disk and the pages its last ANALYZE saw (0: none). */
async function tablePages(db: AnyDb, schema: string) {
  const result = await sql<{
    table: string;
    pages: number;
    analysed_pages: number;
    all_visible: number;
  }>`
    select c.relname as table,
      (pg_relation_size(c.oid) / current_setting('block_size')::int)::int as pages,
      case when c.reltuples < 0 then 0 else c.relpages end::int as analysed_pages,
      c.relallvisible::int as all_visible
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = ${schema} and c.relkind = 'r'
    order by c.relname
  `.execute(db);
  return result.rows.map((r) => ({
    table: r.table,
    pages: Number(r.pages),
    analysedPages: Number(r.analysed_pages),
    allVisible: Number(r.all_visible),
  }));
}

/** True at most once per `intervalMs` per key in this process (the hot path's throttle). */
function due(last: Map<string, number>, key: string, intervalMs: number): boolean {
  const now = performance.now();
  const previous = last.get(key);
  if (previous !== undefined && now - previous < intervalMs) return false;
  last.set(key, now);
  return true;
}

/**
 * ANALYZE every table of `schema` that grew past the threshold since its last ANALYZE (see the
 * module comment). Cheap when nothing grew: one catalog query over the schema's tables.
 */
export async function analyzeGrownTables(
  db: AnyDb,
  schema: string,
  options: AnalyzeOptions = {},
): Promise<AnalyzeOutcome> {
  assertSchemaName(schema);
  const growth = options.growth ?? 1.5;
  const minPages = options.minPages ?? 8;
  const analysed: AnalyzeOutcome['analysed'] = [];
  for (const { table, pages, analysedPages: before } of await tablePages(db, schema)) {
    if (pages <= minPages || pages <= before * growth) continue;
    await sql`analyze ${sql.id(schema, table)}`.execute(db);
    analysed.push({ table, pages, pagesBefore: before });
  }
  return { analysed };
}

/** Vacuum a table once its pages exceed `growth` × the pages at its last VACUUM here (1.25). */
export interface VacuumOptions {
  growth?: number;
  minPages?: number;
  /**
   * Tables vacuumed per call at most (1), the most grown first: on PGlite a VACUUM holds the only
   * session, and one with dead rows scans the table's indexes (about 1.5 s for 2M postings), so
   * the pause a caller sees is one table's, not the sum of all.
   */
  maxTables?: number;
  /**
   * Pages of each table (`schema.table`) at its last VACUUM by this process (default: the
   * process's own map; tests pass a fresh one to act as a new process).
   */
  vacuumed?: Map<string, number>;
}

const vacuumedPages = new Map<string, number>();

/**
 * VACUUM the table of `schema` that grew most past the threshold since this process last vacuumed
 * it (`maxTables` for more per call). A table this process has not vacuumed yet is measured
 * against its pages marked all-visible when it was last vacuumed or analysed (`relallvisible`),
 * so a restart does not vacuum every table of a large read model again, one after another, while
 * it serves its first requests (on PGlite each such VACUUM holds the only session).
 *
 * PGlite has no autovacuum, and a server's may be off or behind a bulk projection. Without VACUUM
 * the visibility map stays unset, so an index-only scan (a term's postings, ADR 0013) still reads
 * one heap page per row, and dead rows are never reclaimed. VACUUM visits only pages not yet
 * all-visible, so each run costs about what changed since the last. It cannot run in a
 * transaction: the projector calls it after a batch commits.
 */
export async function vacuumGrownTables(
  db: AnyDb,
  schema: string,
  options: VacuumOptions = {},
): Promise<string[]> {
  assertSchemaName(schema);
  const growth = options.growth ?? 1.25;
  const minPages = options.minPages ?? 8;
  const vacuumed = options.vacuumed ?? vacuumedPages;
  const grown = (await tablePages(db, schema))
    .map(({ table, pages, allVisible }) => {
      const before = vacuumed.get(`${schema}.${table}`) ?? allVisible;
      return { table, pages, growth: before > 0 ? pages / before : Infinity };
    })
    .filter((t) => t.pages > minPages && t.growth > growth)
    .sort((a, b) => b.growth - a.growth || b.pages - a.pages)
    .slice(0, options.maxTables ?? 1);
  for (const t of grown) {
    await sql`vacuum ${sql.id(schema, t.table)}`.execute(db);
    vacuumed.set(`${schema}.${t.table}`, t.pages);
  }
  return grown.map((t) => t.table);
}

const lastVacuumCheck = new Map<string, number>();

/** `vacuumGrownTables` at most once per `intervalMs` per schema in this process. */
export async function keepVisibilityMaps(
  db: AnyDb,
  schema: string,
  intervalMs = 5000,
): Promise<string[] | null> {
  return due(lastVacuumCheck, schema, intervalMs) ? vacuumGrownTables(db, schema) : null;
}

const lastCheck = new Map<string, number>();

/**
 * `analyzeGrownTables` at most once per `intervalMs` per schema in this process: the projector's
 * hot path calls it for every batch, for the read model's schema and (through the log's
 * `maintain`) the log's, and the check itself is a catalog query.
 */
export async function keepPlannerStatistics(
  db: AnyDb,
  schema: string,
  intervalMs = 1000,
): Promise<AnalyzeOutcome | null> {
  if (!due(lastCheck, schema, intervalMs)) return null;
  return analyzeGrownTables(db, schema);
}
