/**
 * Search and recall latency against space size (issues 4 and 5), and projection throughput when
 * rebuilding from position 0.
 *
 * Per backend and size: a fresh database; the space's records appended to the message log in
 * large batches (bench/search-seed.ts); then the real server (`stratagate serve`, its own process,
 * roles ingest, projector and query) starts on it and projects everything from position 0 —
 * records/s and the process's peak RSS are taken there; then `search/events`, `search/raw` and
 * `recall` are called over loopback HTTP with the key the server printed, sequentially, with a
 * fixed query set. On Postgres, every SQL statement of one request per endpoint is captured from
 * an in-process node on the same database and explained (EXPLAIN ANALYZE, BUFFERS).
 */
import { createReadStream } from 'node:fs';
import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { performance } from 'node:perf_hooks';
import { Kysely, PostgresDialect, sql, type LogEvent } from 'kysely';
import pg from 'pg';
import type { NewRecord, SpaceRef } from '@stratagate/domain';
import { createPostgresLog, type MessageLog } from '@stratagate/log';
import { generateApiKey } from '@stratagate/http';
import { loadConfig, startNode } from '@stratagate/runtime';
import { openDatabase, type AnyDb, type Database } from '@stratagate/store';
import { benchQueries, pick, prng, type BenchQuery } from './search-corpus.ts';
import { seedSpace, type SeedStats } from './search-seed.ts';
import { request } from './http.ts';
import { peakRssMiB, startServerWithKey, type BenchServer } from './server.ts';
import { round, summarize } from './stats.ts';

export const ENDPOINTS = ['search/events', 'search/raw', 'recall'] as const;
export type Endpoint = (typeof ENDPOINTS)[number];
export type Summary = ReturnType<typeof summarize>;

const TENANT = 'local';
const SERVER_ROLES = 'ingest,projector,query';

export interface SearchBenchOptions {
  sizes: number[];
  requests: number;
  warmup: number;
  /** Admin URL of a Postgres server (a fresh database is created per size); none = PGlite only. */
  postgresUrl?: string | undefined;
  /** Where EXPLAIN reports go (bench/out). */
  outDir: string;
  /** How long the server may project as the service runs it before the bench analyses. */
  asIsBudgetSeconds: number;
  /** Stop measuring a size after this long (but not before 100 requests per endpoint). */
  measureBudgetSeconds: number;
  /** Keep generated seeds here and replay them in later runs (default: a temporary directory). */
  seedCache?: string | undefined;
  /** Reuse results an interrupted run with the same options saved in outDir. */
  resume?: boolean;
  /** Backends to measure now (default both); with `resume`, saved results of the others count. */
  backends?: ('pglite' | 'postgres')[];
  /** Keep each size's database (or PGlite directory) after the run, for looking into it. */
  keepStore?: boolean;
}

const MIN_REQUESTS = 100;
/** Queries of another seed, measured once each after the repeated set. */
const NOVEL_QUERIES = 96;
const NOVEL_SEED = 777;

/** One server process projecting: from its start until caught up (or stopped at a budget). */
export interface ProjectionPhase {
  /** Log positions applied in this phase (one position per record here). */
  records: number;
  seconds: number;
  recordsPerSecond: number;
  /** Rate over the first and the last 30 s of the phase (or the whole phase if shorter). */
  firstRate: number;
  lastRate: number;
  /** Longest time without the projected position moving. */
  longestStallSeconds: number;
  done: boolean;
  peakRssMiB: number | null;
}

export interface ProjectionResult {
  records: number;
  /** Spawn until the URL was printed (module loading, migrations, projector started, listen). */
  startSeconds: number;
  /** As the service runs it (the projector keeps planner statistics itself; no autovacuum here). */
  asIs: ProjectionPhase;
  /** Only when `asIs` hit the budget: the rest, after one ANALYZE and a restart. */
  analysed: ProjectionPhase | null;
  peakRssMiB: number | null;
}

export interface ExplainedStatement {
  sql: string;
  parameters: string;
  ms: number;
  plan: string | null;
}

export interface ExplainReport {
  endpoint: Endpoint;
  query: string;
  totalMs: number;
  statements: ExplainedStatement[];
}

export interface SizeResult {
  backend: string;
  size: number;
  seed: SeedStats;
  generated: boolean;
  seedSeconds: number;
  projection: ProjectionResult;
  /**
   * The first request of each endpoint after the server started (single samples). For every
   * size above the probe's, the first search is the space's first write ever (the seed went to
   * the log directly): it folds the whole space and saves the writer's snapshot (ADR 0024).
   */
  cold: Record<Endpoint, number>;
  /** The same after a restart once the measurement is done: the writer starts from its snapshot. */
  restarted?: Record<Endpoint, number>;
  /** The repeated query set (the steady state: its terms and documents are cached). */
  latency: Record<Endpoint, Summary>;
  /**
   * Queries the server has not seen, each once, after the measured requests: a long-running
   * process meeting new questions (their common terms cached, their rare ones not).
   */
  novel?: Record<Endpoint, Summary>;
  /** 1-minute load average of the machine before and after the measured requests. */
  load: [number, number];
  byKind: Record<Endpoint, Record<BenchQuery['kind'], Summary>>;
  /** One request per endpoint before any ANALYZE (PGlite, small sizes only). */
  noStatistics: Record<Endpoint, number> | null;
  analyzeSeconds: number;
  explain: ExplainReport[] | null;
  statistics: string;
  /** Wall time of this backend and size, seeding to teardown. */
  wallSeconds: number;
}

export interface SearchBenchResult {
  options: SearchBenchOptions;
  results: SizeResult[];
  wallSeconds: number;
}

const fmt = (n: number) => n.toLocaleString('en-US');
const log = (label: string, text: string) =>
  console.log(`[${new Date().toISOString().slice(11, 19)}] [${label}] ${text}`);

// ---------------------------------------------------------------------------------------------
// Seeding, with a per-run cache so the second backend appends exactly the same records.

interface SeedCacheEntry {
  file: string;
  stats: SeedStats;
}

async function seedInto(
  label: string,
  logTarget: MessageLog,
  space: SpaceRef,
  size: number,
  cacheDir: string,
  cache: Map<number, SeedCacheEntry>,
): Promise<{ stats: SeedStats; generated: boolean; seconds: number }> {
  const started = performance.now();
  const append = async (records: NewRecord[]) => {
    const result = await logTarget.append(space, records);
    if (result.status !== 'appended') throw new Error('seed append answered duplicate');
  };
  const cached = cache.get(size);
  if (cached) {
    // Replay the batches generated for the first backend: same records, same order.
    let pending: Promise<void> = Promise.resolve();
    let records = 0;
    let lastProgress = performance.now();
    const lines = createInterface({ input: createReadStream(cached.file), crlfDelay: Infinity });
    for await (const line of lines) {
      const batch = JSON.parse(line) as NewRecord[];
      await pending;
      pending = append(batch);
      records += batch.length;
      if (performance.now() - lastProgress > 10_000) {
        lastProgress = performance.now();
        log(label, `appending: ${fmt(records)} / ${fmt(cached.stats.records)} records`);
      }
    }
    await pending;
    return { stats: cached.stats, generated: false, seconds: (performance.now() - started) / 1000 };
  }
  const file = join(cacheDir, `seed-${size}.jsonl`);
  await writeFile(file, '');
  const stats = await seedSpace(
    {
      space,
      events: size,
      seed: 20_240_000 + size,
      onProgress: (s) =>
        log(
          label,
          `seeding: ${fmt(s.events)} / ${fmt(size)} memory events, ${fmt(s.messages)} messages, ` +
            `${fmt(s.records)} records appended (${round(s.seconds, 0)} s)`,
        ),
    },
    async (records) => {
      await appendFile(file, `${JSON.stringify(records)}\n`);
      await append(records);
    },
  );
  await writeFile(`${file}.stats.json`, JSON.stringify(stats));
  cache.set(size, { file, stats });
  return { stats, generated: true, seconds: (performance.now() - started) / 1000 };
}

// ---------------------------------------------------------------------------------------------
// Backends: a fresh store per size, and how the server is pointed at it.

interface Store {
  serverArgs: string[];
  database: Database;
  postgresUrl?: string;
  drop(): Promise<void>;
}

async function pgliteStore(): Promise<Store> {
  const dir = await mkdtemp(join(tmpdir(), 'sg-bench-search-'));
  const database = await openDatabase({ kind: 'pglite', dataDir: dir });
  return {
    serverArgs: ['--data-dir', dir],
    database,
    drop: () => rm(dir, { recursive: true, force: true }),
  };
}

async function postgresStore(adminUrl: string, size: number): Promise<Store> {
  const name = `sg_bench_${Date.now()}_${size}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ kind: 'postgres', url: url.toString(), poolSize: 4 });
  return {
    serverArgs: ['--database-url', url.toString()],
    database,
    postgresUrl: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Projection from position 0, timed by polling the status endpoint.

/** The space's positions, or null when the server did not answer within `timeoutMs`. */
async function status(server: BenchServer, spaceId: string, timeoutMs = 5000) {
  let res: Response;
  try {
    res = await fetch(`${server.url}/v1/spaces/${spaceId}/status`, {
      headers: { authorization: `Bearer ${server.key}` },
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') return null;
    throw error;
  }
  if (res.status === 404) {
    await res.arrayBuffer();
    return { projectedPosition: 0, logPosition: Infinity };
  }
  if (res.status !== 200) throw new Error(`status answered ${res.status}`);
  return (await res.json()) as { projectedPosition: number; logPosition: number };
}

/**
 * Polls until the projected position reaches the log head, or until `budgetS` has passed (then
 * the caller stops the server). `since` is when the server printed its URL: the projector starts
 * just before it listens.
 */
async function awaitProjection(
  label: string,
  server: BenchServer,
  spaceId: string,
  from: number,
  since: number,
  budgetS: number,
): Promise<ProjectionPhase> {
  const samples: { t: number; p: number }[] = [{ t: 0, p: from }];
  let lastProgress = performance.now();
  const rateOver = (a: { t: number; p: number }, b: { t: number; p: number }) =>
    b.t > a.t ? Math.round((b.p - a.p) / (b.t - a.t)) : 0;
  let stalledSince = 0;
  let longestStall = 0;
  for (;;) {
    // On PGlite a status request waits for the projector's transaction: a stuck statement
    // shows as no answer, and the budget must still apply.
    const s = await status(server, spaceId);
    const seconds = (performance.now() - since) / 1000;
    const last = samples[samples.length - 1]!;
    const p = s ? Math.max(s.projectedPosition, from) : last.p;
    if (p > last.p) stalledSince = seconds;
    longestStall = Math.max(longestStall, seconds - stalledSince);
    samples.push({ t: seconds, p });
    const done = s !== null && s.projectedPosition >= s.logPosition;
    if (done || seconds > budgetS) {
      const first =
        samples.find((x) => x.t >= Math.min(30, seconds)) ?? samples[samples.length - 1]!;
      const lastStart = [...samples].reverse().find((x) => x.t <= seconds - 30) ?? samples[0]!;
      return {
        records: p - from,
        seconds: round(seconds, 2),
        recordsPerSecond: Math.round((p - from) / seconds),
        firstRate: rateOver(samples[0]!, first),
        lastRate: rateOver(lastStart, samples[samples.length - 1]!),
        longestStallSeconds: Math.round(longestStall),
        done,
        peakRssMiB: await peakRssMiB(server.child.pid!),
      };
    }
    if (performance.now() - lastProgress > 10_000) {
      lastProgress = performance.now();
      const recent = [...samples].reverse().find((x) => x.t <= seconds - 10) ?? samples[0]!;
      log(
        label,
        s
          ? `projecting: position ${fmt(s.projectedPosition)} / ${fmt(s.logPosition)} ` +
              `(${fmt(rateOver(recent, samples[samples.length - 1]!))} records/s over the last 10 s)`
          : `projecting: no answer from the status endpoint within 5 s; no progress seen for ${fmt(
              Math.round(seconds - stalledSince),
            )} s (on PGlite each of its reads waits for the batch or slice holding the session)`,
      );
    }
    // Fine-grained at first (small spaces finish in a second), then once a second.
    await new Promise((r) => setTimeout(r, seconds < 5 ? 50 : 1000));
  }
}

// ---------------------------------------------------------------------------------------------
// Latency over HTTP.

function requestFor(endpoint: Endpoint, q: BenchQuery) {
  return endpoint === 'recall' ? { message: q.text } : { query: q.text };
}

async function call(
  server: BenchServer,
  spaceId: string,
  threadId: string,
  endpoint: Endpoint,
  q: BenchQuery,
): Promise<number> {
  const started = performance.now();
  const res = await request(
    server.url,
    'POST',
    `/v1/spaces/${spaceId}/threads/${threadId}/${endpoint}`,
    server.key,
    JSON.stringify(requestFor(endpoint, q)),
  );
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`${endpoint} answered ${res.status}: ${res.body}`);
  return ms;
}

async function measureLatency(
  label: string,
  server: BenchServer,
  spaceId: string,
  threads: string[],
  queries: BenchQuery[],
  options: SearchBenchOptions,
) {
  const loadBefore = round(loadavg()[0]!, 1);
  const cold = {} as Record<Endpoint, number>;
  for (const endpoint of ENDPOINTS) {
    cold[endpoint] = round(await call(server, spaceId, threads[0]!, endpoint, queries[0]!), 1);
  }
  log(
    label,
    `first requests after start: ${ENDPOINTS.map((e) => `${e} ${cold[e]} ms`).join(', ')}`,
  );
  for (let i = 0; i < options.warmup; i++) {
    for (const endpoint of ENDPOINTS) {
      await call(
        server,
        spaceId,
        threads[i % threads.length]!,
        endpoint,
        queries[i % queries.length]!,
      );
    }
  }
  // Endpoints interleaved request by request, so drift on a shared machine hits all three alike.
  const samples = Object.fromEntries(
    ENDPOINTS.map((e) => [e, [] as { ms: number; kind: string }[]]),
  );
  let lastProgress = performance.now();
  const measureStart = performance.now();
  for (let i = 0; i < options.requests; i++) {
    // A time budget for slow spaces, but never fewer than MIN_REQUESTS per endpoint.
    const elapsed = (performance.now() - measureStart) / 1000;
    if (i >= MIN_REQUESTS && elapsed > options.measureBudgetSeconds) {
      log(label, `measurement budget reached after ${i} requests per endpoint`);
      break;
    }
    const q = queries[i % queries.length]!;
    const thread = threads[(i * 7) % threads.length]!;
    for (const endpoint of ENDPOINTS) {
      samples[endpoint]!.push({
        ms: await call(server, spaceId, thread, endpoint, q),
        kind: q.kind,
      });
    }
    if (performance.now() - lastProgress > 10_000) {
      lastProgress = performance.now();
      log(label, `measuring: ${i + 1} / ${options.requests} requests per endpoint`);
    }
  }
  // New questions on the warm process: another query set (other seed), each query once.
  const novelSamples = Object.fromEntries(ENDPOINTS.map((e) => [e, [] as number[]]));
  const novelQueries = benchQueries(NOVEL_QUERIES, NOVEL_SEED);
  for (let i = 0; i < novelQueries.length; i++) {
    const thread = threads[(i * 11) % threads.length]!;
    for (const endpoint of ENDPOINTS) {
      novelSamples[endpoint]!.push(await call(server, spaceId, thread, endpoint, novelQueries[i]!));
    }
  }
  const novel = Object.fromEntries(
    ENDPOINTS.map((e) => [e, summarize(novelSamples[e]!)]),
  ) as Record<Endpoint, Summary>;
  log(
    label,
    `new queries: ${ENDPOINTS.map((e) => `${e} p50 ${round(novel[e].p50, 1)} / p95 ${round(novel[e].p95, 1)} ms`).join(', ')}`,
  );
  const load = round(loadavg()[0]!, 1);
  const latency = {} as Record<Endpoint, Summary>;
  const byKind = {} as SizeResult['byKind'];
  for (const endpoint of ENDPOINTS) {
    const s = samples[endpoint]!;
    latency[endpoint] = summarize(s.map((x) => x.ms));
    byKind[endpoint] = Object.fromEntries(
      (['keywords', 'question', 'chinese', 'mixed'] as const).map((k) => [
        k,
        summarize(s.filter((x) => x.kind === k).map((x) => x.ms)),
      ]),
    ) as Record<BenchQuery['kind'], Summary>;
  }
  return { cold, latency, novel, byKind, load: [loadBefore, load] as [number, number] };
}

// ---------------------------------------------------------------------------------------------
// Statements per request, explained (Postgres).

const isPlainRead = (sql: string) =>
  /^\s*(select|with)\b/i.test(sql) &&
  !/\b(insert|update|delete)\s/i.test(sql) &&
  !/pg_advisory/i.test(sql);

const shortParams = (params: readonly unknown[]) => {
  const text = JSON.stringify(params);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
};

/**
 * Runs one request per endpoint and query kind through the real route handlers (an in-process
 * node with the query role on the same database, the server's key), capturing every SQL statement
 * Kysely sends with its duration; then EXPLAIN (ANALYZE, BUFFERS) each read statement.
 */
async function explainEndpoints(
  url: string,
  key: string,
  spaceId: string,
  threadId: string,
  queries: BenchQuery[],
): Promise<ExplainReport[]> {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  let capture: { sql: string; parameters: readonly unknown[]; ms: number }[] | null = null;
  const db = new Kysely<unknown>({
    dialect: new PostgresDialect({ pool }),
    log: (event: LogEvent) => {
      if (capture && event.level === 'query') {
        capture.push({
          sql: event.query.sql,
          parameters: event.query.parameters,
          ms: event.queryDurationMillis,
        });
      }
    },
  }) as AnyDb;
  const database: Database = {
    db,
    target: { kind: 'postgres', url },
    capabilities: { concurrentSessions: true },
    close: () => db.destroy(),
  };
  const config = loadConfig(
    {},
    { STRATAGATE_ROLES: 'query', STRATAGATE_LOG_LEVEL: 'silent', STRATAGATE_TENANT: TENANT },
  );
  const node = await startNode(config, {
    database,
    logger: false,
    listen: false,
    bootstrapKey: false,
  });
  const explainer = new pg.Client({ connectionString: url });
  await explainer.connect();
  const reports: ExplainReport[] = [];
  try {
    const kinds = ['keywords', 'question', 'chinese'] as const;
    for (const endpoint of ENDPOINTS) {
      for (const kind of kinds) {
        const q = queries.find((x) => x.kind === kind)!;
        const inject = () =>
          node.http!.inject({
            method: 'POST',
            url: `/v1/spaces/${spaceId}/threads/${threadId}/${endpoint}`,
            headers: { authorization: `Bearer ${key}` },
            payload: requestFor(endpoint, q),
          });
        await inject(); // warm: plan caches, the writer's state of the space
        capture = [];
        const started = performance.now();
        const res = await inject();
        const totalMs = performance.now() - started;
        const statements = capture;
        capture = null;
        if (res.statusCode !== 200) throw new Error(`${endpoint} answered ${res.statusCode}`);
        const explained: ExplainedStatement[] = [];
        for (const s of statements) {
          let plan: string | null = null;
          if (isPlainRead(s.sql)) {
            const out = await explainer.query(
              `explain (analyze, buffers) ${s.sql}`,
              s.parameters as unknown[],
            );
            plan = out.rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n');
          }
          explained.push({
            sql: s.sql.replace(/\s+/g, ' ').trim(),
            parameters: shortParams(s.parameters),
            ms: round(s.ms, 2),
            plan,
          });
        }
        reports.push({
          endpoint,
          query: q.text,
          totalMs: round(totalMs, 1),
          statements: explained,
        });
      }
    }
  } finally {
    await explainer.end();
    await node.stop();
  }
  return reports;
}

function explainText(label: string, reports: ExplainReport[]): string {
  const out = [`# ${label}: statements per request, with EXPLAIN (ANALYZE, BUFFERS)`, ''];
  for (const r of reports) {
    out.push(
      `## ${r.endpoint} ${JSON.stringify(r.query)}: ${r.statements.length} statements, ${r.totalMs} ms in the handler`,
      '',
    );
    r.statements.forEach((s, i) => {
      out.push(`### ${i + 1}. ${s.ms} ms`, s.sql, `params: ${s.parameters}`, '');
      if (s.plan) out.push(s.plan, '');
    });
  }
  return out.join('\n');
}

/** Read-model tables with planner statistics, and how many there are. */
async function analysedTables(db: AnyDb): Promise<{ analysed: number; tables: number }> {
  const r = await sql<{ analysed: number; tables: number }>`
    select count(*) filter (where c.reltuples >= 0)::int as analysed, count(*)::int as tables
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'rm_v1' and c.relkind = 'r'`.execute(db);
  return r.rows[0] ?? { analysed: 0, tables: 0 };
}

/**
 * VACUUM (ANALYZE) with no server running; returns the state before. On both backends: the
 * projector keeps visibility maps and statistics itself (one grown table per 5 s), but right after
 * a bulk projection that upkeep would still be running, one VACUUM at a time on PGlite's only
 * session, while the bench measures; the measurement is of the steady state it leads to.
 */
async function analyse(store: Store) {
  const db = await openDatabase(
    store.postgresUrl
      ? { kind: 'postgres', url: store.postgresUrl, poolSize: 1 }
      : { kind: 'pglite', dataDir: store.serverArgs[1]! },
  );
  try {
    const before = await analysedTables(db.db);
    const setting = await sql<{ on: string }>`select current_setting('autovacuum') as on`.execute(
      db.db,
    );
    const autovacuum = store.postgresUrl ? (setting.rows[0]?.on ?? 'unknown') : 'none';
    const t0 = performance.now();
    await sql`vacuum (analyze)`.execute(db.db);
    const seconds = round((performance.now() - t0) / 1000, 1);
    const r = await sql<{ position: number }>`
      select position from rm_v1.checkpoints where name = 'core'`.execute(db.db);
    return { before, seconds, autovacuum, position: Number(r.rows[0]?.position ?? 0) };
  } finally {
    await db.close();
  }
}

/** Without statistics the cost of a request grows with the square of the space: probe small ones. */
const NO_STATISTICS_PROBE_MAX_SIZE = 2000;

async function runOne(
  backend: 'pglite' | 'postgres',
  size: number,
  options: SearchBenchOptions,
  cacheDir: string,
  cache: Map<number, SeedCacheEntry>,
): Promise<SizeResult> {
  const runStarted = performance.now();
  const backendName = backend === 'pglite' ? 'embedded (PGlite)' : 'local Postgres';
  const label = `${backend} ${fmt(size)}`;
  const store =
    backend === 'pglite' ? await pgliteStore() : await postgresStore(options.postgresUrl!, size);
  const spaceId = `bench-${size}`;
  const space = { tenantId: TENANT, spaceId };
  const key = generateApiKey().key;
  const startSeconds: number[] = [];
  const serve = async () => {
    const t0 = performance.now();
    const started = await startServerWithKey([...store.serverArgs, '--role', SERVER_ROLES], key, {
      STRATAGATE_TENANT: TENANT,
    });
    startSeconds.push(round((performance.now() - t0) / 1000, 1));
    return started;
  };
  /** A crash stop: a graceful one would first finish the whole catch-up (tail-loop stop). */
  const kill = async (s: BenchServer) => {
    const exited = new Promise((r) => s.child.once('exit', r));
    s.child.kill('SIGKILL');
    await exited;
  };
  let server: BenchServer | null = null;
  try {
    // 1. The space's records, appended to the log in batches.
    log(label, `seeding a space with ${fmt(size)} memory events`);
    const messageLog = await createPostgresLog(store.database);
    const seeded = await seedInto(label, messageLog, space, size, cacheDir, cache);
    await messageLog.close();
    await store.database.close();
    const { stats } = seeded;
    log(
      label,
      `seeded ${fmt(stats.records)} records (${fmt(stats.events)} events, ${fmt(stats.messages)} messages, ` +
        `${fmt(stats.blocks)} blocks, ${stats.threads.length} threads) in ${round(seeded.seconds, 1)} s; ` +
        `starting the server, projecting from position 0`,
    );

    // 2. The server projects it all from position 0, as the service runs it; past the budget
    //    (quadratic without planner statistics), once more after one ANALYZE.
    server = await serve();
    const asIs = await awaitProjection(
      label,
      server,
      spaceId,
      0,
      performance.now(),
      options.asIsBudgetSeconds,
    );
    let analysed: ProjectionPhase | null = null;
    if (!asIs.done) {
      await kill(server);
      server = null;
      // What the killed server had committed: its checkpoint (the batch in flight rolled back).
      const { position } = await analyse(store);
      asIs.records = position;
      asIs.recordsPerSecond = Math.round(position / asIs.seconds);
    }
    log(
      label,
      `as the service runs it: ${fmt(asIs.records)} records in ${asIs.seconds} s after a ${startSeconds[0]} s start ` +
        `(${fmt(asIs.recordsPerSecond)} records/s; ${fmt(asIs.firstRate)} in the first 30 s, ` +
        `${fmt(asIs.lastRate)} in the last 30 s; peak RSS ${asIs.peakRssMiB} MiB)` +
        (asIs.done ? '' : ' — budget reached: killed, analysed, restarting'),
    );
    if (!asIs.done) {
      server = await serve();
      analysed = await awaitProjection(
        label,
        server,
        spaceId,
        asIs.records,
        performance.now(),
        Infinity,
      );
      log(
        label,
        `after one ANALYZE: ${fmt(analysed.records)} records in ${analysed.seconds} s ` +
          `(${fmt(analysed.recordsPerSecond)} records/s; peak RSS ${analysed.peakRssMiB} MiB)`,
      );
    }
    const peaks = [asIs.peakRssMiB, analysed?.peakRssMiB].filter((x): x is number => x != null);
    const projection: ProjectionResult = {
      records: stats.records,
      startSeconds: startSeconds[0]!,
      asIs,
      analysed,
      peakRssMiB: peaks.length > 0 ? Math.max(...peaks) : null,
    };
    const rng = prng(size);
    const threads = Array.from({ length: Math.min(16, stats.threads.length) }, () =>
      pick(rng, stats.threads),
    );
    const queries = benchQueries();
    const projecting = server!;
    let noStatistics: Record<Endpoint, number> | null = null;
    if (asIs.done && size <= NO_STATISTICS_PROBE_MAX_SIZE) {
      log(label, 'one request per endpoint as projected, before any ANALYZE');
      noStatistics = {} as Record<Endpoint, number>;
      for (const endpoint of ENDPOINTS) {
        noStatistics[endpoint] = round(
          await call(projecting, spaceId, threads[0]!, endpoint, queries[0]!),
          0,
        );
        log(label, `  ${endpoint}: ${fmt(noStatistics[endpoint])} ms`);
      }
    }
    await projecting.stop();
    server = null;

    // 3. Planner statistics for the measurement, as a settled database would have them.
    const { before, seconds: analyzeSeconds, autovacuum } = await analyse(store);
    const why = store.postgresUrl
      ? `this server: autovacuum ${autovacuum}`
      : 'PGlite runs no autovacuum';
    const statistics =
      `${before.analysed} of ${before.tables} read-model tables had statistics when projection ended ` +
      (analysed
        ? `(from the bench's ANALYZE at the as-is budget; ${why}; the projector analyses grown tables)`
        : `(${why}; the projector analyses tables that grew by half)`) +
      `; then \`vacuum (analyze)\` by the bench (${analyzeSeconds} s)`;
    log(label, statistics);

    // 4. A fresh server process: first requests, warm-up, measured requests.
    server = await serve();
    const measured = await measureLatency(label, server, spaceId, threads, queries, options);
    log(
      label,
      ENDPOINTS.map(
        (e) =>
          `${e} p50 ${round(measured.latency[e].p50)} / p95 ${round(measured.latency[e].p95)} ms`,
      ).join(', '),
    );

    let explain: ExplainReport[] | null = null;
    if (store.postgresUrl) {
      log(label, 'capturing and explaining the statements of one request per endpoint');
      explain = await explainEndpoints(store.postgresUrl, key, spaceId, threads[0]!, queries);
      await mkdir(options.outDir, { recursive: true });
      const file = join(options.outDir, `explain-postgres-${size}.txt`);
      await writeFile(file, explainText(label, explain));
      log(label, `EXPLAIN report: ${file}`);
    }
    await server.stop();
    server = null;

    // 5. Started once more: what a restart costs the first requests once the writer has a
    //    snapshot of the space (ADR 0024) and the tables were vacuumed by the runs before.
    server = await serve();
    const restarted = {} as Record<Endpoint, number>;
    for (const endpoint of ENDPOINTS) {
      restarted[endpoint] = round(
        await call(server, spaceId, threads[0]!, endpoint, queries[0]!),
        1,
      );
    }
    log(
      label,
      `first requests after a restart: ${ENDPOINTS.map((e) => `${e} ${restarted[e]} ms`).join(', ')}`,
    );
    await server.stop();
    server = null;
    return {
      backend: backendName,
      size,
      seed: stats,
      generated: seeded.generated,
      seedSeconds: round(seeded.seconds, 1),
      projection,
      noStatistics,
      analyzeSeconds,
      ...measured,
      restarted,
      explain,
      statistics,
      wallSeconds: Math.round((performance.now() - runStarted) / 1000),
    };
  } finally {
    // On failure, a graceful stop could wait for a whole catch-up: kill, the store goes anyway.
    if (server) await kill(server);
    if (options.keepStore) {
      log(label, `kept the store: ${store.postgresUrl ?? store.serverArgs.join(' ')}`);
    } else await store.drop();
  }
}

export async function searchBench(options: SearchBenchOptions): Promise<SearchBenchResult> {
  const started = performance.now();
  const cacheDir = options.seedCache ?? (await mkdtemp(join(tmpdir(), 'sg-bench-seed-')));
  await mkdir(cacheDir, { recursive: true });
  const cache = new Map<number, SeedCacheEntry>();
  for (const size of options.sizes) {
    // Seeds generated earlier into a --seed-cache directory (same bench code) are replayed.
    const file = join(cacheDir, `seed-${size}.jsonl`);
    const stats = await readFile(`${file}.stats.json`, 'utf8').catch(() => null);
    if (stats) cache.set(size, { file, stats: JSON.parse(stats) as SeedStats });
  }
  const results: SizeResult[] = [];
  try {
    const backends: ('pglite' | 'postgres')[] = ['pglite'];
    if (options.postgresUrl) backends.push('postgres');
    else console.log('no Postgres URL (DATABASE_URL): the search benchmark runs on PGlite only');
    const measure = new Set(options.backends ?? backends);
    // Each result is saved as soon as it is complete; --resume picks up the ones an interrupted
    // run with the same options finished (a long run on a shared machine can be stopped).
    const partial = join(options.outDir, 'search-partial');
    await mkdir(partial, { recursive: true });
    const fingerprint = JSON.stringify({
      ...options,
      resume: undefined,
      seedCache: undefined,
      backends: undefined,
      keepStore: undefined,
    });
    for (const backend of backends) {
      for (const size of options.sizes) {
        const file = join(partial, `${backend}-${size}.json`);
        if (options.resume) {
          const saved = await readFile(file, 'utf8').catch(() => null);
          const parsed = saved
            ? (JSON.parse(saved) as { fingerprint: string; result: SizeResult })
            : null;
          if (parsed?.fingerprint === fingerprint) {
            log(`${backend} ${fmt(size)}`, `resumed from ${file}`);
            results.push(parsed.result);
            continue;
          }
        }
        if (!measure.has(backend)) {
          log(`${backend} ${fmt(size)}`, 'skipped (--backends), no saved result to resume');
          continue;
        }
        const result = await runOne(backend, size, options, cacheDir, cache);
        await writeFile(file, JSON.stringify({ fingerprint, result }));
        results.push(result);
      }
    }
  } finally {
    if (!options.seedCache) await rm(cacheDir, { recursive: true, force: true });
  }
  return { options, results, wallSeconds: round((performance.now() - started) / 1000, 0) };
}
