/**
 * Consolidation scale-out (issue 38 item 3, ADR 0042): how long a backlog of sealed blocks,
 * spread over many spaces, takes to summarise with a model that answers in `--slow` ms, by the
 * number of `serve --role consolidator` processes and their concurrency. On a Postgres server
 * (DATABASE_URL; a database of its own is created and dropped).
 *
 *   DATABASE_URL=postgres://… node --import tsx bench/consolidators.bench.ts \
 *     --spaces 60 --blocks 5 --rounds 3 --slow 300
 *
 * Each round posts a fresh backlog (new spaces) per setting while no consolidator runs, waits
 * until it is projected, starts the consolidators with the backlog held back until every one of
 * them makes passes, then times from letting it go to the last block's summary in the read
 * model. Settings within a round run one after another, so
 * their ratios compare runs side by side on the same (shared, noisy) machine.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { fakeOpenAiReply, startFakeOpenAiServer } from '@stratagate/model/testing';
import { DEFAULT_READ_MODEL_SCHEMA } from '@stratagate/store';
import { turn } from '../test/harness.ts';
import { eventually, freePort, startRoleProcess } from '../test/support/processes.ts';
import { round } from './stats.ts';

const { values } = parseArgs({
  options: {
    spaces: { type: 'string', default: '60' },
    blocks: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    slow: { type: 'string', default: '300' },
  },
});
const SPACES = Number(values.spaces);
const BLOCKS = Number(values.blocks);
const ROUNDS = Number(values.rounds);
const SLOW_MS = Number(values.slow);
/** Processes × concurrency; the first is the baseline of both ratios. */
const SETTINGS = [
  { processes: 1, concurrency: 1 },
  { processes: 4, concurrency: 1 },
  { processes: 1, concurrency: 8 },
] as const;

const base = process.env.DATABASE_URL;
if (!base) throw new Error('DATABASE_URL: this bench runs on a Postgres server');
const dbName = `bench_consolidators_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: base });
await admin.connect();
await admin.query(`create database ${dbName}`);
const url = new URL(base);
url.pathname = `/${dbName}`;
const key = `sg_bench_${randomBytes(24).toString('hex')}`;

let calls = 0;
const fake = await startFakeOpenAiServer();
fake.respondWith(() => {
  calls += 1;
  return fakeOpenAiReply.delayed(
    SLOW_MS,
    fakeOpenAiReply.json({
      title: 'Workshop planning',
      tags: ['pottery'],
      summary: 'Caroline planned pottery workshops.',
      keyPoints: ['Workshops planned.'],
      shouldExtract: false,
    }),
  );
});
const env: Record<string, string> = {
  DATABASE_URL: url.toString(),
  STRATAGATE_API_KEY: key,
  STRATAGATE_TENANT: 'local',
  STRATAGATE_LOG_LEVEL: 'warn',
  STRATAGATE_MODEL_BASE_URL: fake.baseUrl,
  STRATAGATE_MODEL_NAME: 'fake-model',
  // The backlog is posted before the consolidators start: nothing to wait for (ADR 0026).
  STRATAGATE_CONSOLIDATOR_YIELD_RATE: '0',
};
const db = new pg.Client({ connectionString: url.toString() });
const processes: ReturnType<typeof startRoleProcess>[] = [];
try {
  const migrate = startRoleProcess('migrate', ['migrate'], env);
  if ((await migrate.exited) !== 0) throw new Error('migrate failed');
  const port = await freePort();
  const api = `http://127.0.0.1:${port}`;
  const server = startRoleProcess(
    'ingest-projector-query',
    ['serve', '--role', 'ingest,projector,query', '--port', String(port)],
    env,
  );
  processes.push(server);
  await eventually('readyz', async () => (await fetch(`${api}/readyz`)).ok || undefined, 180_000);
  await db.connect();
  const post = async (method: string, path: string, body: unknown) => {
    const res = await fetch(`${api}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  };
  const blocksOf = async (prefix: string, status?: string) => {
    const { rows } = await db.query<{ n: string }>(
      `select count(*) as n from ${DEFAULT_READ_MODEL_SCHEMA}.blocks
       where space_id like $1 ${status ? `and summary_status = '${status}'` : ''}`,
      [`${prefix}-%`],
    );
    return Number(rows[0]!.n);
  };

  const results: { processes: number; concurrency: number; seconds: number[] }[] = SETTINGS.map(
    (s) => ({ ...s, seconds: [] }),
  );
  for (let r = 1; r <= ROUNDS; r++) {
    for (const [i, setting] of SETTINGS.entries()) {
      const prefix = `r${r}p${setting.processes}c${setting.concurrency}`;
      const spaces = Array.from({ length: SPACES }, (_, s) => `${prefix}-${s}`);
      // The backlog: BLOCKS blocks of two turns in each space, projected before anyone consolidates.
      await Promise.all(
        spaces.map(async (space) => {
          await post('PUT', `/v1/spaces/${space}/settings`, { blockSize: 2 });
          for (let t = 1; t <= 2 * BLOCKS; t++) {
            await post('POST', `/v1/spaces/${space}/turns`, turn(t));
          }
        }),
      );
      const total = SPACES * BLOCKS;
      await eventually(
        'the backlog projected',
        async () => (await blocksOf(prefix)) === total || undefined,
        600_000,
      );
      // The consolidators start with the backlog held back, as a space import holds its space
      // (ADR 0045), so that booting the processes is not timed: once each has made a pass (each
      // pass claims the profiles' lease, which names its holder), the backlog is let go.
      await db.query(
        `insert into control.space_imports (tenant_id, space_id, records)
         select 'local', unnest($1::text[]), 0`,
        [spaces],
      );
      const callsBefore = calls;
      const consolidators = Array.from({ length: setting.processes }, (_, p) =>
        startRoleProcess(`consolidator-${p + 1}`, ['serve', '--role', 'consolidator'], {
          ...env,
          STRATAGATE_CONSOLIDATOR_CONCURRENCY: String(setting.concurrency),
        }),
      );
      const running = new Set<string>();
      await eventually(
        'every consolidator making passes',
        async () => {
          const { rows } = await db.query<{ holder: string }>(
            `select holder from control.job_leases where unit = 'profiles'`,
          );
          if (rows[0]) running.add(rows[0].holder.split(':').at(-2)!);
          return consolidators.every((c) => running.has(String(c.child.pid))) || undefined;
        },
        300_000,
        10,
      );
      await db.query(`delete from control.space_imports where space_id = any($1::text[])`, [
        spaces,
      ]);
      const startedAt = performance.now();
      await eventually(
        `${prefix}: ${total} blocks summarised`,
        async () => (await blocksOf(prefix, 'succeeded')) === total || undefined,
        3_600_000,
        100,
      );
      const seconds = (performance.now() - startedAt) / 1000;
      for (const c of consolidators) c.kill('SIGTERM');
      await Promise.all(consolidators.map((c) => c.exited));
      results[i]!.seconds.push(seconds);
      console.log(
        JSON.stringify({
          round: r,
          ...setting,
          blocks: total,
          modelCalls: calls - callsBefore,
          seconds: round(seconds, 2),
          blocksPerSecond: round(total / seconds, 1),
        }),
      );
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const baseline = median(results[0]!.seconds);
  console.log('\n| processes × concurrency | median s | blocks/s | speed-up vs 1 × 1 | runs (s) |');
  console.log('| ---: | ---: | ---: | ---: | --- |');
  for (const r of results) {
    const m = median(r.seconds);
    console.log(
      `| ${r.processes} × ${r.concurrency} | ${round(m, 1)} | ${round((SPACES * BLOCKS) / m, 1)} | ` +
        `${round(baseline / m, 2)}× | ${r.seconds.map((s) => round(s, 1)).join(', ')} |`,
    );
  }
} finally {
  for (const p of processes) p.kill('SIGTERM');
  await Promise.all(processes.map((p) => p.exited));
  await db.end().catch(() => {});
  await fake.close();
  await admin.query(`drop database if exists ${dbName} with (force)`);
  await admin.end();
}
