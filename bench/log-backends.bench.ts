/**
 * `npm run bench:logs` — the same roles on the Postgres-table log and on the Kafka log, on one
 * machine and one Postgres server (DATABASE_URL names it; a fresh database per backend, dropped
 * after). Kafka is the broker in KAFKA_BROKERS, or librdkafka's mock cluster started here through
 * kcat (scripts/kafka-mock.sh) when that is unset.
 *
 * - end to end: `--turns` turns (default 4000) posted over HTTP with `--concurrency` in flight
 *   (default 32) over `--spaces` spaces (default 40) to one `stratagate serve --role
 *   ingest,projector,query` process; turns/s from the first post until every space's status says
 *   projected = log, ack latency p50/p99, and the projection lag left after the last ack;
 * - rebuild: `stratagate projections rebuild core` over what the end-to-end part wrote, on each
 *   log, in records/s (on Kafka: a build consumer group from offset 0, ADR 0012).
 *
 * Writes docs/benchmarks-logs.md. One run; medians and percentiles of that run.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import * as prettier from 'prettier';
import { closedLoop } from './ingest.bench.ts';
import { startServerWithKey, type BenchServer } from './server.ts';
import { round } from './stats.ts';

const run = promisify(execFile);
const args = process.argv.slice(2);
const flag = (name: string, fallback: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const TURNS = flag('--turns', 4000);
const CONCURRENCY = flag('--concurrency', 32);
const SPACES = flag('--spaces', 40);
const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'stratagate.mjs');
const DOC = join(ROOT, 'docs', 'benchmarks-logs.md');

const baseUrl = process.env.DATABASE_URL;
if (!baseUrl) throw new Error('DATABASE_URL must name a Postgres server (both logs use it)');

async function kafkaBrokers(): Promise<{ brokers: string; stop: () => void }> {
  if (process.env.KAFKA_BROKERS) return { brokers: process.env.KAFKA_BROKERS, stop: () => {} };
  const envFile = join(await mkdtemp(join(tmpdir(), 'sg-kafka-')), 'kafka.env');
  const { stdout } = await run(join(ROOT, 'scripts', 'kafka-mock.sh'), [envFile]);
  const pid = Number(await readFile(`${envFile}.pid`, 'utf8'));
  return { brokers: stdout.trim(), stop: () => process.kill(pid) };
}

async function withDatabase<T>(label: string, fn: (url: string) => Promise<T>): Promise<T> {
  const name = `sg_bench_${label}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(baseUrl!);
  url.pathname = `/${name}`;
  try {
    return await fn(url.toString());
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

async function status(server: BenchServer, space: string) {
  const res = await fetch(`${server.url}/v1/spaces/${space}/status`, {
    headers: { authorization: `Bearer ${server.key}` },
  });
  if (res.status === 404) return { projectedPosition: 0, logPosition: 1 };
  return (await res.json()) as { projectedPosition: number; logPosition: number };
}

/** Waits until every space reports projected = log; returns the instant it saw that. */
async function projectedEverywhere(server: BenchServer, spaces: string[]): Promise<number> {
  const pending = new Set(spaces);
  for (;;) {
    for (const space of [...pending]) {
      const s = await status(server, space);
      if (s.projectedPosition >= s.logPosition) pending.delete(space);
    }
    if (pending.size === 0) return performance.now();
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface EndToEnd {
  backend: string;
  turnsPerSecond: number;
  postingSeconds: number;
  ackP50: number;
  ackP99: number;
  lagAfterLastAck: number;
}

async function endToEnd(backend: string, url: string, env: Record<string, string>) {
  const key = `sg_bench_${randomBytes(24).toString('hex')}`;
  const server = await startServerWithKey(
    ['--role', 'ingest,projector,query', '--database-url', url],
    key,
    env,
  );
  try {
    const prefix = `e2e-${backend}`;
    const spaces = Array.from({ length: SPACES }, (_, i) => `${prefix}-${i}`);
    // Warm-up on other spaces: JIT, pools, the consumer group's first join.
    await closedLoop(server, 200, 8, 4, `warm-${backend}`);
    await projectedEverywhere(
      server,
      Array.from({ length: 4 }, (_, i) => `warm-${backend}-${i}`),
    );
    const started = performance.now();
    const posted = await closedLoop(server, TURNS, CONCURRENCY, SPACES, prefix);
    const lastAck = performance.now();
    const done = await projectedEverywhere(server, spaces);
    const result: EndToEnd = {
      backend,
      turnsPerSecond: round(TURNS / ((done - started) / 1000)),
      postingSeconds: posted.seconds,
      ackP50: round(posted.latency.p50),
      ackP99: round(posted.latency.p99),
      lagAfterLastAck: round((done - lastAck) / 1000, 2),
    };
    console.log(result);
    return result;
  } finally {
    await server.stop();
  }
}

async function rebuild(
  url: string,
  env: Record<string, string>,
  table: string,
): Promise<{ records: number; seconds: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const records = Number(
    (await client.query<{ n: string }>(`select count(*) as n from ${table}`)).rows[0]!.n,
  );
  await client.end();
  const started = performance.now();
  await run(process.execPath, [BIN, 'projections', 'rebuild', 'core', '--drain-ms', '0'], {
    env: { ...process.env, ...env, DATABASE_URL: url, STRATAGATE_LOG_LEVEL: 'warn' },
    maxBuffer: 64 * 1024 * 1024,
  });
  return { records, seconds: (performance.now() - started) / 1000 };
}

const kafka = await kafkaBrokers();
try {
  const postgres = await withDatabase('pglog', async (url) => {
    const env = { STRATAGATE_LOG_BACKEND: 'postgres' };
    const e2e = await endToEnd('postgres-table', url, env);
    const rebuilt = await rebuild(url, env, 'log.records');
    console.log('rebuild', rebuilt);
    return { e2e, rebuilt };
  });
  const viaKafka = await withDatabase('kafkalog', async (url) => {
    const env = {
      STRATAGATE_LOG_BACKEND: 'kafka',
      KAFKA_BROKERS: kafka.brokers,
      STRATAGATE_KAFKA_TOPIC: `bench-${randomBytes(4).toString('hex')}`,
    };
    const e2e = await endToEnd('kafka', url, env);
    const rebuilt = await rebuild(url, env, 'kafka_log.records');
    console.log('rebuild', rebuilt);
    return { e2e, rebuilt };
  });
  const rows = [postgres.e2e, viaKafka.e2e].map(
    (r) =>
      `| ${r.backend} | ${r.turnsPerSecond} | ${r.postingSeconds} | ${r.ackP50} | ${r.ackP99} | ${r.lagAfterLastAck} |`,
  );
  const rebuildRows = (
    [
      ['postgres-table', postgres.rebuilt],
      ['kafka', viaKafka.rebuilt],
    ] as const
  )
    .map(
      ([name, r]) =>
        `| ${name} | ${r.records} | ${round(r.seconds, 1)} | ${round(r.records / r.seconds)} |`,
    )
    .join('\n');
  const ratio = round(viaKafka.e2e.turnsPerSecond / postgres.e2e.turnsPerSecond, 2);
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB`;
  const doc = `# Benchmarks: Postgres-table log vs Kafka log

Generated by \`DATABASE_URL=postgres://… npm run bench:logs\` (bench/log-backends.bench.ts) on
${new Date().toISOString().slice(0, 10)}, ${machine}, Node ${process.version}. One run: both backends measured back to back on
the same machine (shared: other processes may run beside the bench) and the same local Postgres server. Kafka: ${
    process.env.KAFKA_BROKERS
      ? `the broker at KAFKA_BROKERS`
      : `librdkafka's in-memory mock cluster (kcat, 3 brokers, 4 partitions per topic), not a real broker`
  }.

## End to end: turn posted → projected

One \`stratagate serve --role ingest,projector,query\` process per backend; ${TURNS} turns posted over
HTTP with ${CONCURRENCY} requests in flight, spread over ${SPACES} spaces, after a 200-turn warm-up.
Turns/s counts from the first post until every space's status reports its records projected.

| log | turns/s end to end | posting took (s) | ack p50 (ms) | ack p99 (ms) | projection lag after the last ack (s) |
| --- | ---: | ---: | ---: | ---: | ---: |
${rows.join('\n')}

Kafka / Postgres-table end-to-end throughput: **${ratio}×**.

## Projection rebuild

\`stratagate projections rebuild core\` over the records the end-to-end part wrote (the version
beside the live one, the switch, the drop; the serving process stopped, no traffic meanwhile),
wall time of the CLI including its start:

| log | records | seconds | records/s |
| --- | ---: | ---: | ---: |
${rebuildRows}

On the mock cluster every fetch returns one producer batch (one append: 1–3 records), so the
Kafka projector and the Kafka rebuild pay one transaction per append; a real broker returns up
to \`maxBytes\` per fetch (ADR 0012).
`;
  await writeFile(DOC, await prettier.format(doc, { parser: 'markdown', filepath: DOC }));
  console.log(`wrote ${DOC}`);
} finally {
  kafka.stop();
}
