import { sql, type RawBuilder } from 'kysely';
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
 *
 * Growth alone leaves one window: a space added after a table's last ANALYZE. Given the spaces'
 * sizes (`spaceSizes`), a table is also analysed once its statistics do not know a space that
 * has grown to `unseenSpaceRows` (`unseenSpaceTables`, ADR 0029).
 */
export interface AnalyzeOptions {
  /** Analyse a table once its pages exceed `growth` × the pages at its last ANALYZE (1.5). */
  growth?: number;
  /** Tables up to this many pages are never analysed for growth alone (8 pages = 64 KiB). */
  minPages?: number;
  /**
   * The schema's spaces and their sizes, as rows `(tenant_id, space_id, n)`: the read model's
   * `spaces` with their turn counts, the log's `streams` with their versions. With it, a table is
   * also analysed when its statistics do not know a space of at least `unseenSpaceRows` (see
   * `unseenSpaceTables`).
   */
  spaceSizes?: RawBuilder<unknown>;
  /** The size (in `spaceSizes`' unit) from which an unseen space gets its tables analysed (1,000). */
  unseenSpaceRows?: number;
}

/** Tables analysed by the last call, with their page counts (for logs and tests). */
export interface AnalyzeOutcome {
  analysed: {
    table: string;
    pages: number;
    pagesBefore: number;
    /** Set when the table was analysed for a space its statistics did not know. */
    unseenSpace?: { tenantId: string; spaceId: string };
  }[];
}

/**
 * The sum of the frequencies of `space_id`'s most common values from which a table's statistics
 * count as covering every space they saw: a value outside them is then estimated at one row.
 */
const COVERING_FREQUENCY = 0.999;

/** (schema.table, tenant, space) an ANALYZE already ran for in this process: never twice. */
const analysedForSpace = new Set<string>();

/**
 * Tables of `schema` whose statistics do not know a space that has grown to `minRows` (each with
 * the first such space), per the module comment's window: when a table holds fewer spaces than
 * its statistics target, the most common values of `space_id` cover every sampled row, and the
 * planner estimates a space outside them at one row. Its key look-ups then take any index that
 * starts with `(tenant_id, space_id)` and filter the rest of the key row by row: the whole new
 * space, on every look-up, until the table has grown by half and is analysed. A table whose most
 * common values leave rows over is left alone: there an unknown space is estimated at its share
 * of them. A table is analysed at most once per space in a process, so a space too small to be
 * sampled does not have it analysed again and again. Spaces are matched by id alone: an id the
 * statistics know under another tenant counts as known.
 */
export async function unseenSpaceTables(
  db: AnyDb,
  schema: string,
  spaceSizes: RawBuilder<unknown>,
  minRows: number,
): Promise<{ table: string; tenantId: string; spaceId: string }[]> {
  assertSchemaName(schema);
  const result = await sql<{ table: string; tenant_id: string; space_id: string }>`
    with covering as (
      select s.tablename, s.most_common_vals::text::text[] as vals
      from pg_stats s
      where s.schemaname = ${schema} and s.attname = 'space_id'
        and (select sum(f) from unnest(s.most_common_freqs) f) >= ${COVERING_FREQUENCY}
    ),
    sizes as (select * from (${spaceSizes}) x where x.n >= ${minRows})
    select c.tablename as table, z.tenant_id, z.space_id
    from covering c
    join sizes z on not (z.space_id = any(c.vals))
    order by c.tablename, z.tenant_id, z.space_id
  `.execute(db);
  const found = new Map<string, { table: string; tenantId: string; spaceId: string }>();
  for (const r of result.rows) {
    if (found.has(r.table)) continue;
    if (analysedForSpace.has(JSON.stringify([schema, r.table, r.tenant_id, r.space_id]))) continue;
    found.set(r.table, { table: r.table, tenantId: r.tenant_id, spaceId: r.space_id });
  }
  return [...found.values()];
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
  const tables = await tablePages(db, schema);
  for (const { table, pages, analysedPages: before } of tables) {
    if (pages <= minPages || pages <= before * growth) continue;
    await sql`analyze ${sql.id(schema, table)}`.execute(db);
    analysed.push({ table, pages, pagesBefore: before });
  }
  if (options.spaceSizes) {
    const unseen = await unseenSpaceTables(
      db,
      schema,
      options.spaceSizes,
      options.unseenSpaceRows ?? 1_000,
    );
    for (const { table, tenantId, spaceId } of unseen) {
      analysedForSpace.add(JSON.stringify([schema, table, tenantId, spaceId]));
      if (analysed.some((a) => a.table === table)) continue;
      const t = tables.find((x) => x.table === table);
      await sql`analyze ${sql.id(schema, table)}`.execute(db);
      analysed.push({
        table,
        pages: t?.pages ?? 0,
        pagesBefore: t?.analysedPages ?? 0,
        unseenSpace: { tenantId, spaceId },
      });
    }
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
  options: AnalyzeOptions = {},
): Promise<AnalyzeOutcome | null> {
  if (!due(lastCheck, schema, intervalMs)) return null;
  return analyzeGrownTables(db, schema, options);
}
