/**
 * Consolidation scale-out (issue 38 item 3, ADR 0042): how long a backlog of sealed blocks,
 * spread over many spaces, takes to summarise with a model that answers in `--slow` ms, by the
 * number of consolidator processes and their concurrency.
 *
 *   [DATABASE_URL=postgres://…] node --import tsx bench/consolidators.bench.ts \
 *     --spaces 32 --blocks 5 --rounds 3 --slow 300 [--settings 1x1,4x1,1x8] [--plot F.svg]
 *
 * On a Postgres server (DATABASE_URL; a database of its own is created and dropped) each
 * consolidator is a `serve --role consolidator` process beside one ingest/projector/query
 * process. Without DATABASE_URL it runs on the embedded store (PGlite in a temporary data
 * directory, as `npm start` runs it): one node with every role, so only the concurrency varies.
 *
 * Each round posts a fresh backlog (new spaces) per setting, held back as a space import holds
 * its space (ADR 0045) until it is projected and the consolidators make passes, then times from
 * letting it go to the last block's summary in the read model. Settings within a round run one
 * after another, so their ratios compare runs side by side on the same (shared, noisy) machine.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import pg from 'pg';
import { fakeOpenAiReply, startFakeOpenAiServer } from '@stratagate/model/testing';
import { beginSpaceImport, DEFAULT_READ_MODEL_SCHEMA, endSpaceImport } from '@stratagate/store';
import { startTestNode, turn, type TestNode } from '../test/harness.ts';
import { eventually, freePort, startRoleProcess } from '../test/support/processes.ts';
import { round } from './stats.ts';
import { logLogChart, type Series } from './svg-plot.ts';

const { values } = parseArgs({
  options: {
    spaces: { type: 'string', default: '60' },
    blocks: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    slow: { type: 'string', default: '300' },
    settings: { type: 'string' },
    plot: { type: 'string' },
  },
});
const SPACES = Number(values.spaces);
const BLOCKS = Number(values.blocks);
const ROUNDS = Number(values.rounds);
const SLOW_MS = Number(values.slow);
const base = process.env.DATABASE_URL;
const BACKEND = base ? 'postgres' : 'pglite';

interface Setting {
  processes: number;
  concurrency: number;
}
/** Processes × concurrency; the first is the baseline of every ratio. */
const SETTINGS: Setting[] = (values.settings ?? (base ? '1x1,4x1,1x8' : '1x1,1x8'))
  .split(',')
  .map((s) => {
    const [processes, concurrency] = s.split('x').map(Number);
    if (!processes || !concurrency) throw new Error(`--settings: "${s}" is not PxC`);
    if (!base && processes > 1)
      throw new Error('the embedded store is owned by one process: set DATABASE_URL for P > 1');
    return { processes, concurrency };
  });

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
const modelEnv = {
  STRATAGATE_MODEL_BASE_URL: fake.baseUrl,
  STRATAGATE_MODEL_NAME: 'fake-model',
  // The backlog is posted before the consolidators start: nothing to wait for (ADR 0026).
  STRATAGATE_CONSOLIDATOR_YIELD_RATE: '0',
};

/** Where the backlog is posted, counted, held back and consolidated, for one setting. */
interface Deployment {
  /** Before a setting's backlog is posted. */
  begin(setting: Setting): Promise<void>;
  post(method: string, path: string, body: unknown): Promise<void>;
  blocks(prefix: string, status?: string): Promise<number>;
  /** Holds `spaces` back (true) or lets them go (false). */
  hold(spaces: string[], held: boolean): Promise<void>;
  /** Consolidators of `setting` running and making passes; resolves to their stop. */
  consolidate(setting: Setting): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

const blocksSql = (prefix: string, status?: string) =>
  `select count(*) as n from ${DEFAULT_READ_MODEL_SCHEMA}.blocks
   where space_id like '${prefix}-%' ${status ? `and summary_status = '${status}'` : ''}`;

/** One ingest/projector/query process and `serve --role consolidator` processes per setting. */
async function onPostgres(url: string): Promise<Deployment> {
  const dbName = `bench_consolidators_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create database ${dbName}`);
  const dbUrl = new URL(url);
  dbUrl.pathname = `/${dbName}`;
  const key = `sg_bench_${randomBytes(24).toString('hex')}`;
  const env: Record<string, string> = {
    ...modelEnv,
    DATABASE_URL: dbUrl.toString(),
    STRATAGATE_API_KEY: key,
    STRATAGATE_TENANT: 'local',
    STRATAGATE_LOG_LEVEL: 'warn',
  };
  const db = new pg.Client({ connectionString: dbUrl.toString() });
  const migrate = startRoleProcess('migrate', ['migrate'], env);
  if ((await migrate.exited) !== 0) throw new Error('migrate failed');
  const port = await freePort();
  const api = `http://127.0.0.1:${port}`;
  const server = startRoleProcess(
    'ingest-projector-query',
    ['serve', '--role', 'ingest,projector,query', '--port', String(port)],
    env,
  );
  await eventually('readyz', async () => (await fetch(`${api}/readyz`)).ok || undefined, 180_000);
  await db.connect();
  return {
    async begin() {},
    async post(method, path, body) {
      const res = await fetch(`${api}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    },
    async blocks(prefix, status) {
      return Number((await db.query<{ n: string }>(blocksSql(prefix, status))).rows[0]!.n);
    },
    async hold(spaces, held) {
      await db.query(
        held
          ? `insert into control.space_imports (tenant_id, space_id, records)
             select 'local', unnest($1::text[]), 0`
          : `delete from control.space_imports where space_id = any($1::text[])`,
        [spaces],
      );
    },
    async consolidate(setting) {
      const consolidators = Array.from({ length: setting.processes }, (_, p) =>
        startRoleProcess(`consolidator-${p + 1}`, ['serve', '--role', 'consolidator'], {
          ...env,
          STRATAGATE_CONSOLIDATOR_CONCURRENCY: String(setting.concurrency),
        }),
      );
      // Each pass claims the profiles' lease, which names its holder: so that booting the
      // processes is not timed, every one of them has made a pass before the backlog goes.
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
      return async () => {
        for (const c of consolidators) c.kill('SIGTERM');
        await Promise.all(consolidators.map((c) => c.exited));
      };
    },
    async close() {
      server.kill('SIGTERM');
      await server.exited;
      await db.end().catch(() => {});
      await admin.query(`drop database if exists ${dbName} with (force)`);
      await admin.end();
    },
  };
}

/**
 * The embedded store: one node with every role on a fresh data directory per setting (its
 * concurrency is read at start), started before the backlog is posted, which is held back.
 */
function onPglite(): Deployment {
  let node: TestNode | null = null;
  let dir: string | null = null;
  const current = () => {
    if (!node) throw new Error('no node for this setting yet');
    return node;
  };
  const stopNode = async () => {
    await node?.stop();
    node = null;
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = null;
  };
  return {
    async begin(setting) {
      dir = mkdtempSync(join(tmpdir(), 'sg-consolidators-'));
      node = await startTestNode('consolidators', {
        dataDir: dir,
        config: {
          ...modelEnv,
          STRATAGATE_CONSOLIDATOR_CONCURRENCY: String(setting.concurrency),
        },
      });
    },
    async post(method, path, body) {
      const res = await current().request(method as 'POST' | 'PUT', path, body);
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status}`);
    },
    async blocks(prefix, status) {
      const { rows } = await sql
        .raw<{ n: string | number }>(blocksSql(prefix, status))
        .execute(current().node.database.db);
      return Number(rows[0]!.n);
    },
    async hold(spaces, held) {
      const db = current().node.database.db;
      for (const spaceId of spaces) {
        const space = { tenantId: 'local', spaceId };
        await (held ? beginSpaceImport(db, space, 0) : endSpaceImport(db, space));
      }
    },
    // The node's own consolidator makes passes already; the held spaces wait.
    consolidate: async () => stopNode,
    close: stopNode,
  };
}

const deployment = base ? await onPostgres(base) : onPglite();
const results = SETTINGS.map((s) => ({ ...s, seconds: [] as number[] }));
try {
  for (let r = 1; r <= ROUNDS; r++) {
    for (const [i, setting] of SETTINGS.entries()) {
      await deployment.begin(setting);
      const prefix = `r${r}p${setting.processes}c${setting.concurrency}`;
      const spaces = Array.from({ length: SPACES }, (_, s) => `${prefix}-${s}`);
      const total = SPACES * BLOCKS;
      // Only consolidators read the hold: turns are admitted and projected meanwhile.
      await deployment.hold(spaces, true);
      // The backlog: BLOCKS blocks of two turns in each space, projected before anyone consolidates.
      await Promise.all(
        spaces.map(async (space) => {
          await deployment.post('PUT', `/v1/spaces/${space}/settings`, { blockSize: 2 });
          for (let t = 1; t <= 2 * BLOCKS; t++) {
            await deployment.post('POST', `/v1/spaces/${space}/turns`, turn(t));
          }
        }),
      );
      await eventually(
        'the backlog projected',
        async () => (await deployment.blocks(prefix)) === total || undefined,
        600_000,
      );
      const callsBefore = calls;
      const stop = await deployment.consolidate(setting);
      await deployment.hold(spaces, false);
      const startedAt = performance.now();
      await eventually(
        `${prefix}: ${total} blocks summarised`,
        async () => (await deployment.blocks(prefix, 'succeeded')) === total || undefined,
        3_600_000,
        100,
      );
      const seconds = (performance.now() - startedAt) / 1000;
      await stop();
      results[i]!.seconds.push(seconds);
      console.log(
        JSON.stringify({
          backend: BACKEND,
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
} finally {
  await deployment.close();
  await fake.close();
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const baseline = median(results[0]!.seconds);
const rows = results.map((r) => ({ ...r, median: median(r.seconds) }));
console.log(
  `\n${BACKEND}: ${SPACES * BLOCKS} blocks, model ${SLOW_MS} ms` +
    '\n| processes × concurrency | median s | blocks/s | speed-up vs first | runs (s) |' +
    '\n| ---: | ---: | ---: | ---: | --- |',
);
for (const r of rows) {
  console.log(
    `| ${r.processes} × ${r.concurrency} | ${round(r.median, 1)} | ` +
      `${round((SPACES * BLOCKS) / r.median, 1)} | ${round(baseline / r.median, 2)}× | ` +
      `${r.seconds.map((s) => round(s, 1)).join(', ')} |`,
  );
}

if (values.plot) {
  // Blocks/s against the number of model calls that may be in flight (processes × concurrency):
  // one line for more processes, one for more concurrency, and the linear ideal.
  const rate = (r: (typeof rows)[number]) => (SPACES * BLOCKS) / r.median;
  const line = (label: string, color: string, of: (typeof rows)[number][], dash?: string) => ({
    label,
    color,
    ...(dash ? { dash } : {}),
    points: of.map((r) => ({ x: r.processes * r.concurrency, y: rate(r) })),
  });
  const first = rows[0]!;
  const byProcess = rows.filter((r) => r.concurrency === first.concurrency);
  const byConcurrency = rows.filter((r) => r.processes === first.processes);
  const most = Math.max(...rows.map((r) => r.processes * r.concurrency));
  const series: Series[] = [
    line(`${BACKEND}: more processes`, '#1f77b4', byProcess),
    line(`${BACKEND}: more concurrency`, '#d62728', byConcurrency),
    {
      label: 'linear (first × n)',
      color: '#7f7f7f',
      dash: '2 4',
      points: [1, most].map((n) => ({ x: n, y: rate(first) * n })),
    },
  ].filter((s) => s.points.length > 1);
  writeFileSync(
    values.plot,
    logLogChart({
      title: 'Consolidation throughput by processes and concurrency',
      subtitle: `bench/consolidators.bench.ts, ${new Date().toISOString().slice(0, 10)}, ${BACKEND}, model ${SLOW_MS} ms, ${SPACES * BLOCKS} blocks`,
      xLabel: 'model calls in flight at most (processes × concurrency, log scale)',
      yLabel: 'blocks summarised per second (log scale)',
      series,
    }),
  );
}
