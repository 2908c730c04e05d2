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
 * Growth alone leaves one window: a space, or a kind of document, added after a table's last
 * ANALYZE. Given their sizes (`keySizes`), a table is also analysed once its statistics do not
 * know a value that has grown to `unseenKeyRows` (`unseenKeyTables`, ADR 0029).
 */
export interface AnalyzeOptions {
  /** Analyse a table once its pages exceed `growth` × the pages at its last ANALYZE (1.5). */
  growth?: number;
  /** Tables up to this many pages are never analysed for growth alone (8 pages = 64 KiB). */
  minPages?: number;
  /**
   * Key values and their sizes, per key column, as rows `(value, n)`: the read model's spaces
   * (`space_id`, with their turn counts) and document kinds (`doc_kind`, with their documents),
   * the log's spaces (with their record counts). With them, a table is also analysed when its
   * statistics do not know a value of at least `unseenKeyRows` (see `unseenKeyTables`).
   */
  keySizes?: readonly KeySizes[];
  /** The size (in the sizes' unit) from which an unseen key value gets its tables analysed (1,000). */
  unseenKeyRows?: number;
}

/** The values of one key column and their sizes, as rows `(value, n)`. */
export interface KeySizes {
  column: 'space_id' | 'doc_kind';
  sizes: RawBuilder<unknown>;
}

/** Tables analysed by the last call, with their page counts (for logs and tests). */
export interface AnalyzeOutcome {
  analysed: {
    table: string;
    pages: number;
    pagesBefore: number;
    /** Set when the table was analysed for a key value its statistics did not know. */
    unseenKey?: { column: string; value: string };
  }[];
}

/**
 * The sum of the frequencies of a key column's most common values from which a table's
 * statistics count as covering every value they saw: a value outside them is then estimated at
 * one row.
 */
const COVERING_FREQUENCY = 0.999;

/** (schema, table, column, value) an ANALYZE already ran for in this process: never twice. */
const analysedForKey = new Set<string>();
const keyOf = (schema: string, table: string, column: string, value: string) =>
  JSON.stringify([schema, table, column, value]);

/**
 * Tables of `schema` whose statistics do not know a key value that has grown to `minRows` (each
 * with the first such value), per the module comment's window. When a table holds fewer values of
 * a key column (spaces, document kinds) than its statistics target, the most common values cover
 * every sampled row, and the planner estimates a value outside them at one row. Look-ups by a key
 * with that value then take any index that starts with the same columns and filter the rest of
 * the key row by row: every row of the new space or kind, on every look-up, until the table has
 * grown by half and is analysed. A table whose most common values leave rows over is left alone:
 * there an unknown value is estimated at its share of them. A table is analysed at most once per
 * value in a process, so a value too rare to be sampled does not have it analysed again and
 * again. Values are matched alone: a space id the statistics know under another tenant counts as
 * known.
 */
export async function unseenKeyTables(
  db: AnyDb,
  schema: string,
  keys: readonly KeySizes[],
  minRows: number,
): Promise<{ table: string; column: string; value: string }[]> {
  assertSchemaName(schema);
  const found = new Map<string, { table: string; column: string; value: string }>();
  for (const { column, sizes } of keys) {
    const result = await sql<{ table: string; value: string }>`
      with covering as (
        select s.tablename, s.most_common_vals::text::text[] as vals
        from pg_stats s
        where s.schemaname = ${schema} and s.attname = ${column}
          and (select sum(f) from unnest(s.most_common_freqs) f) >= ${COVERING_FREQUENCY}
      ),
      sizes as (select * from (${sizes}) x where x.n >= ${minRows})
      select c.tablename as table, z.value
      from covering c
      join sizes z on not (z.value = any(c.vals))
      order by c.tablename, z.value
    `.execute(db);
    for (const r of result.rows) {
      if (found.has(r.table)) continue;
      if (analysedForKey.has(keyOf(schema, r.table, column, r.value))) continue;
      found.set(r.table, { table: r.table, column, value: r.value });
    }
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
  if (options.keySizes?.length) {
    const unseen = await unseenKeyTables(
      db,
      schema,
      options.keySizes,
      options.unseenKeyRows ?? 1_000,
    );
    for (const { table, column, value } of unseen) {
      analysedForKey.add(keyOf(schema, table, column, value));
      if (analysed.some((a) => a.table === table)) continue;
      const t = tables.find((x) => x.table === table);
      await sql`analyze ${sql.id(schema, table)}`.execute(db);
      analysed.push({
        table,
        pages: t?.pages ?? 0,
        pagesBefore: t?.analysedPages ?? 0,
        unseenKey: { column, value },
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
 * The read model's key values and their sizes: spaces by their turns, kinds of search document
 * by their documents (`analyzeGrownTables`' `keySizes`).
 */
export function readModelKeySizes(schema: string): KeySizes[] {
  assertSchemaName(schema);
  return [
    {
      column: 'space_id',
      sizes: sql`select space_id as value, turn_counter as n from ${sql.id(schema, 'spaces')}`,
    },
    {
      column: 'doc_kind',
      sizes: sql`select doc_kind as value, sum(next_no) as n
        from ${sql.id(schema, 'search_doc_numbers')} group by doc_kind`,
    },
  ];
}

/**
 * `analyzeGrownTables` at most once per `intervalMs` (default 1,000) per schema in this process:
 * the projector's hot path calls it for every batch, for the read model's schema and (through the
 * log's `maintain`) the log's, and the check itself is a catalog query.
 */
export async function keepPlannerStatistics(
  db: AnyDb,
  schema: string,
  options: AnalyzeOptions & { intervalMs?: number } = {},
): Promise<AnalyzeOutcome | null> {
  if (!due(lastCheck, schema, options.intervalMs ?? 1000)) return null;
  return analyzeGrownTables(db, schema, options);
}
