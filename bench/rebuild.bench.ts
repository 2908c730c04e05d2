/**
 * `node --import tsx bench/rebuild.bench.ts [--backend pglite|postgres] [--events 10000]
 *   [--modes per-record,buffered] [--batch N] [--profile] [--no-check-dump] [--keep]`
 *
 * Rebuild speed of the core projection (issue 38, ADR 0044): seeds a space with the search
 * bench's generator (`search-seed.ts`: turns, seals, summaries, extractions, pins; about 1.26
 * records per memory event), then `rebuildProjection` builds the next version of `core` from
 * position 0 as `stratagate projections rebuild core` does, with no model calls, once per mode:
 * `per-record` with the search index's write buffer off (every change written at once, as before
 * ADR 0044), `buffered` with it. Each version's dump is hashed: the hashes must be equal.
 * Reports records/s, wall time and the peak RSS of this process so far
 * (`process.resourceUsage().maxRSS`: the PGlite heap is inside it, a Postgres server's memory is
 * not; the dump hashes count too, so measure memory with one mode and `--no-check-dump`).
 *
 * The baseline, in the same run: the rebuilt schema's rows copied by `INSERT … SELECT` into empty
 * copies of the same tables (`LIKE … INCLUDING ALL`: the same indexes), one transaction, as the
 * machine's limit for writing that read model. The ratio is rebuild time / baseline time.
 *
 * Postgres: `DATABASE_URL` names a server database used as the admin connection; the bench
 * creates `bench_rebuild_<time>` beside it and drops it at the end.
 *
 * `--profile`: time spent per statement kind (the first words of the SQL), summed over every
 * mode; with `BENCH_EXPLAIN_MS=n` the plan of each statement slower than n ms, and with
 * `BENCH_ANALYZE=<text>` EXPLAIN ANALYZE of one in 20 statements containing it (in a savepoint
 * rolled back). Prints one JSON line of results at the end.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import pg from 'pg';
import { createPostgresLog } from '@stratagate/log';
import {
  dumpReadModel,
  openDatabase,
  searchWriteBuffering,
  type AnyDb,
  type Database,
} from '@stratagate/store';
import { coreProjectionDefinition, rebuildProjection } from '@stratagate/projector';
import { seedSpace } from './search-seed.ts';
import { round } from './stats.ts';
import { logLogChart, type Series } from './svg-plot.ts';

const { values } = parseArgs({
  options: {
    backend: { type: 'string', default: 'pglite' },
    events: { type: 'string', default: '10000' },
    batch: { type: 'string' },
    profile: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    /** Rebuilds in this order, each a new version of the same log. */
    modes: { type: 'string', default: 'per-record,buffered' },
    /** Skips hashing each version's dumpReadModel (which holds the whole dump in memory). */
    'no-check-dump': { type: 'boolean', default: false },
    /** Appends this run's JSON line to this file (one line per backend and size). */
    results: { type: 'string' },
    /** Draws records/s against the space's records from every line of `--results`. */
    plot: { type: 'string' },
  },
});
const backend = values.backend as 'pglite' | 'postgres';
const events = Number(values.events);
const BASE = 'rm_v1';

const log = (...args: unknown[]) => console.error(`[rebuild ${backend}]`, ...args);
const rssMiB = () => Math.round(process.resourceUsage().maxRSS / 1024);

async function open(): Promise<{ database: Database; drop: () => Promise<void> }> {
  if (backend === 'pglite') {
    const dir = await mkdtemp(join(tmpdir(), 'sg-bench-rebuild-'));
    const database = await openDatabase({ kind: 'pglite', dataDir: dir });
    return { database, drop: () => rm(dir, { recursive: true, force: true }) };
  }
  const admin = process.env.DATABASE_URL;
  if (!admin) throw new Error('--backend postgres needs DATABASE_URL');
  const name = `bench_rebuild_${Date.now()}`;
  const run = async (q: string) => {
    const c = new pg.Client({ connectionString: admin });
    await c.connect();
    await c.query(q);
    await c.end();
  };
  await run(`create database ${name}`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  const database = await openDatabase({ kind: 'postgres', url: url.toString(), poolSize: 4 });
  return { database, drop: () => run(`drop database if exists ${name} with (force)`) };
}

/** Sums the time of each statement kind: wraps the driver's query path of this Kysely. */
function profileStatements(db: AnyDb) {
  const totals = new Map<string, { n: number; ms: number }>();
  const executor = db.getExecutor() as unknown as {
    provideConnection: <T>(consumer: (c: unknown) => Promise<T>) => Promise<T>;
  };
  const provide = executor.provideConnection.bind(executor);
  executor.provideConnection = (consumer) =>
    provide((connection) => {
      const c = connection as {
        executeQuery: (q: { sql: string }) => Promise<unknown>;
        __profiled?: boolean;
      };
      if (!c.__profiled) {
        c.__profiled = true;
        const run = c.executeQuery.bind(c);
        c.executeQuery = async (q) => {
          const t0 = performance.now();
          if (
            process.env.BENCH_ANALYZE &&
            q.sql.includes(process.env.BENCH_ANALYZE) &&
            Math.random() < 0.05
          ) {
            await run({ ...q, sql: 'savepoint bench_analyze', parameters: [] } as never);
            const plan = (await run({ ...q, sql: `explain (analyze, buffers) ${q.sql}` })) as {
              rows: Record<string, string>[];
            };
            await run({
              ...q,
              sql: 'rollback to savepoint bench_analyze',
              parameters: [],
            } as never);
            console.error(
              `ANALYZE ${q.sql.slice(0, 50)}\n${plan.rows.map((r) => Object.values(r)[0]).join('\n')}`,
            );
          }
          try {
            return await run(q);
          } finally {
            const key = q.sql
              .replace(/"rm_v1_r2"\./g, '')
              .replace(/\s+/g, ' ')
              .trim()
              .slice(0, 70);
            const t = totals.get(key) ?? { n: 0, ms: 0 };
            const took = performance.now() - t0;
            t.n += 1;
            t.ms += took;
            totals.set(key, t);
            if (
              process.env.BENCH_EXPLAIN_MS &&
              took > Number(process.env.BENCH_EXPLAIN_MS) &&
              /^\s*(with|select|insert|update|delete)\b/i.test(q.sql)
            ) {
              const plan = (await run({ ...q, sql: `explain ${q.sql}` })) as {
                rows: Record<string, string>[];
              };
              console.error(
                `PLAN ${Math.round(took)} ms ${key}\n${plan.rows.map((r) => Object.values(r)[0]).join('\n')}`,
              );
            }
          }
        };
      }
      return consumer(connection);
    });
  return () =>
    [...totals.entries()]
      .sort((a, b) => b[1].ms - a[1].ms)
      .slice(0, 25)
      .map(([k, v]) => ({ statement: k, n: v.n, ms: Math.round(v.ms) }));
}

/** Empty copies of `schema`'s tables with their indexes, filled by INSERT … SELECT; seconds. */
async function baseline(db: AnyDb, schema: string): Promise<{ seconds: number; rows: number }> {
  const copy = `${schema}_baseline`;
  const tables = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = ${schema} and table_type = 'BASE TABLE' order by table_name`.execute(db);
  await sql`drop schema if exists ${sql.id(copy)} cascade`.execute(db);
  await sql`create schema ${sql.id(copy)}`.execute(db);
  for (const { name } of tables.rows) {
    await sql`create table ${sql.id(copy, name)} (like ${sql.id(schema, name)} including all)`.execute(
      db,
    );
  }
  let rows = 0;
  const t0 = performance.now();
  await db.transaction().execute(async (trx) => {
    for (const { name } of tables.rows) {
      const r =
        await sql`insert into ${sql.id(copy, name)} select * from ${sql.id(schema, name)}`.execute(
          trx,
        );
      rows += Number(r.numAffectedRows ?? 0);
    }
  });
  const seconds = (performance.now() - t0) / 1000;
  await sql`drop schema ${sql.id(copy)} cascade`.execute(db);
  return { seconds, rows };
}

async function main() {
  const { database, drop } = await open();
  const db = database.db;
  try {
    const messageLog = await createPostgresLog(database);
    const space = { tenantId: 'bench', spaceId: `rebuild-${events}` };
    log(`seeding ${events} memory events`);
    const seeded = await seedSpace({ space, events, seed: 20_240_000 + events }, (records) =>
      messageLog.append(space, records).then(() => undefined),
    );
    const head = await messageLog.headPosition();
    log(`seeded ${seeded.records} records (head ${head}) in ${round(seeded.seconds, 1)} s`);
    const rssBefore = rssMiB();

    const profile = values.profile ? profileStatements(db) : null;
    const modes = values.modes.split(',') as ('per-record' | 'buffered')[];
    const runs: Record<string, unknown>[] = [];
    const dumps: string[] = [];
    let liveSchema = BASE;
    for (const mode of modes) {
      searchWriteBuffering.enabled = mode === 'buffered';
      const t0 = performance.now();
      const result = await rebuildProjection({
        db,
        log: messageLog,
        base: BASE,
        definition: coreProjectionDefinition,
        rules: { defaultDecayLambda: 0.4 },
        drainMs: 0,
        ...(values.batch ? { batchSize: Number(values.batch) } : {}),
        progressMs: 10_000,
        onProgress: (p) =>
          log(
            `${mode} ${p.phase}: ${p.position} / ${p.head}, ${Math.round(p.recordsPerSecond)} records/s`,
          ),
      });
      const seconds = (performance.now() - t0) / 1000;
      liveSchema = result.liveSchema;
      runs.push({
        mode,
        seconds: round(seconds, 2),
        recordsPerSecond: Math.round(head / seconds),
        peakRssMiB: rssMiB(),
        loadAverage: round(loadavg()[0]!, 1),
      });
      // Each version against the one before it (the schema is dropped at the next switch).
      if (!values['no-check-dump']) {
        // Row by row into the hash: one string of the whole dump would dwarf the build's memory.
        const hash = createHash('sha256');
        for (const [table, rows] of Object.entries(await dumpReadModel(db, liveSchema))) {
          hash.update(table);
          for (const row of rows) hash.update(JSON.stringify(row));
        }
        dumps.push(hash.digest('hex'));
      }
    }
    const statements = profile?.();
    const base = await baseline(db, liveSchema);
    const last = runs.at(-1)!;
    const out = {
      backend,
      events,
      records: head,
      batchSize: values.batch ? Number(values.batch) : 'default',
      runs,
      dumpsEqual: dumps.length > 1 ? dumps.every((d) => d === dumps[0]) : null,
      baselineSeconds: round(base.seconds, 2),
      baselineRows: base.rows,
      baselineRecordsPerSecond: Math.round(head / base.seconds),
      ratio: round(Number(last.seconds) / base.seconds, 1),
      rssAfterSeedMiB: rssBefore,
      ...(statements ? { statements } : {}),
    };
    console.log(JSON.stringify(out));
    if (values.results) {
      appendFileSync(values.results, `${JSON.stringify(out)}\n`);
      if (values.plot) writeFileSync(values.plot, rebuildChart(values.results));
    }
    await messageLog.close();
  } finally {
    await database.close();
    if (!values.keep) await drop();
  }
}

interface ResultLine {
  backend: 'pglite' | 'postgres';
  records: number;
  runs: { mode: string; recordsPerSecond: number }[];
  baselineRecordsPerSecond: number;
}

/**
 * Records/s of each rebuild mode and of the baseline copy against the space's records, both
 * backends, with the targets: the latest line per backend, size and mode counts.
 */
function rebuildChart(file: string): string {
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as ResultLine);
  const points = new Map<string, Map<number, number>>();
  const put = (label: string, x: number, y: number) => {
    const m = points.get(label) ?? new Map<number, number>();
    m.set(x, y);
    points.set(label, m);
  };
  for (const line of lines) {
    for (const run of line.runs)
      put(`${line.backend} ${run.mode}`, line.records, run.recordsPerSecond);
    put(`${line.backend} INSERT … SELECT`, line.records, line.baselineRecordsPerSecond);
  }
  const COLOR: Record<string, string> = {
    'per-record': '#d62728',
    buffered: '#1f77b4',
    'INSERT … SELECT': '#7f7f7f',
  };
  const series: Series[] = [...points].map(([label, m]) => {
    const [backend, ...mode] = label.split(' ');
    return {
      label,
      color: COLOR[mode.join(' ')] ?? '#2ca02c',
      ...(backend === 'pglite' ? { dash: '7 4' } : {}),
      points: [...m].sort((a, b) => a[0] - b[0]).map(([x, y]) => ({ x, y })),
    };
  });
  return logLogChart({
    title: 'Rebuild of the core projection from position 0',
    subtitle: `bench/rebuild.bench.ts; dashed: PGlite, solid: Postgres; dotted: targets`,
    xLabel: 'records in the log (log scale)',
    yLabel: 'records/s (log scale)',
    formatX: (n) => (n >= 1000 ? `${Math.round(n / 1000)}k` : String(n)),
    series,
    targets: [
      { y: 20_000, label: 'Postgres target 20,000/s', color: '#1f77b4' },
      { y: 5_000, label: 'PGlite target 5,000/s', color: '#9467bd' },
    ],
  });
}

await main();
