/**
 * `node --import tsx bench/noisy-neighbour.bench.ts [--seconds 30] [--noisy-turns 3] [--chars N]
 * [--serve]`
 *
 * A quiet tenant beside a noisy one (issue 38, item 4), on in-memory PGlite (or DATABASE_URL),
 * all roles in one node on one thread; with `--serve`, against `stratagate serve` as a user runs
 * it (a new data directory, or a new database beside DATABASE_URL's): ingest and query on the
 * main thread, the projector and the consolidator in the background thread (ADRs 0016, 0030),
 * over HTTP. The quiet tenant posts a small turn every 100 ms for `--seconds`, in
 * two-turn blocks, and after each acknowledgement lists its thread's evidence batches (a read
 * that waits for its own space's projection, and answers 503 `projection_lagging` when it
 * cannot). It does so twice, in spaces of its own: first alone (idle), then while the noisy
 * tenant posts `--noisy-turns` turns of `--chars` characters (default 1.9 MB, the pasted text of
 * `big-turn.bench.ts`) and closes each one's session, so each is sealed and indexed. Prints, per
 * phase, the quiet acknowledgement and read p50/p99 in ms, the 503s, and the ratio to idle;
 * and how long the noisy turns took to be projected.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance, type IntervalHistogram } from 'node:perf_hooks';
import { promisify, parseArgs } from 'node:util';
import pg from 'pg';
import { generateApiKey } from '@stratagate/http';
import { startTestNode } from '../test/harness.ts';
import { closeClients, request } from './http.ts';
import { pastedText } from './pasted-text.ts';
import { startServerWithKey } from './server.ts';
import { round, summarize } from './stats.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '30' },
    'noisy-turns': { type: 'string', default: '3' },
    chars: { type: 'string', default: '1900000' },
    serve: { type: 'boolean', default: false },
  },
});
const seconds = Number(values.seconds);
const noisyTurns = Number(values['noisy-turns']);
const content = pastedText(Number(values.chars));
// A message holds at most 200,000 characters.
const MESSAGE_CHARS = 190_000;
const PERIOD_MS = 100;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The node under test: in this process, or a `stratagate serve` over HTTP. */
interface Target {
  request(
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    body?: object,
    key?: string,
  ): Promise<{ status: number; body: Json }>;
  /** A key of another tenant. */
  otherTenantKey(): Promise<string>;
  stop(): Promise<void>;
}

interface Phase {
  ack: number[];
  read: number[];
  failures: Record<string, number>;
}

/** The quiet tenant's loop in `spaceId` for `forSeconds`. */
async function quietLoop(t: Target, spaceId: string, forSeconds = seconds): Promise<Phase> {
  await t.request('PUT', `/v1/spaces/${spaceId}/settings`, { blockSize: 2 });
  const phase: Phase = { ack: [], read: [], failures: {} };
  const fail = (what: string, status: number) => {
    const k = `${what} ${status}`;
    phase.failures[k] = (phase.failures[k] ?? 0) + 1;
  };
  const end = performance.now() + forSeconds * 1000;
  for (let i = 0; performance.now() < end; i++) {
    const started = performance.now();
    const posted = await t.request('POST', `/v1/spaces/${spaceId}/turns`, {
      turnId: `q-${i}`,
      threadId: 'q',
      occurredAt: new Date(Date.UTC(2026, 10, 30, 10, 0, i)).toISOString(),
      messages: [
        { role: 'user', name: 'Ana', content: `Turn ${i}: the quiet team ships build ${i}.` },
        { role: 'assistant', content: `Noted build ${i}.` },
      ],
    });
    const acked = performance.now();
    if (posted.status === 202) phase.ack.push(acked - started);
    else fail('turn', posted.status);
    const listed = await t.request('GET', `/v1/spaces/${spaceId}/threads/q/batches`);
    const read = performance.now();
    if (listed.status === 200) phase.read.push(read - acked);
    else fail('batches', listed.status);
    await sleep(Math.max(0, started + PERIOD_MS - read));
  }
  return phase;
}

/** The noisy tenant: its huge turns one after another, each session closed (sealed). */
async function noisyLoad(t: Target, key: string): Promise<{ ackMs: number[] }> {
  const ackMs: number[] = [];
  for (let n = 0; n < noisyTurns; n++) {
    const started = performance.now();
    const res = await t.request(
      'POST',
      '/v1/spaces/noisy/turns',
      {
        turnId: `big-${n}`,
        threadId: `s${n}`,
        occurredAt: new Date(Date.UTC(2026, 10, 30, 9, n)).toISOString(),
        messages: [
          ...Array.from({ length: Math.ceil(content.length / MESSAGE_CHARS) }, (_, i) => ({
            role: 'user' as const,
            name: 'Lee',
            content: content.slice(i * MESSAGE_CHARS, (i + 1) * MESSAGE_CHARS),
          })),
          { role: 'assistant' as const, content: 'Noted.' },
        ],
      },
      key,
    );
    if (res.status !== 202)
      throw new Error(`noisy turn: ${res.status} ${JSON.stringify(res.body)}`);
    ackMs.push(performance.now() - started);
    await t.request('POST', `/v1/spaces/noisy/threads/s${n}/close`, {}, key);
  }
  return { ackMs };
}

/** Time until the noisy space's records are all projected (raw search included). */
async function projected(t: Target, key: string, since: number): Promise<number> {
  for (;;) {
    const s = await t.request('GET', '/v1/spaces/noisy/status', undefined, key);
    if (s.status === 200 && s.body.projectedPosition >= s.body.logPosition) {
      return performance.now() - since;
    }
    await sleep(200);
  }
}

const report = (name: string, p: Phase, idle?: Phase) => {
  const ack = summarize(p.ack);
  const read = summarize(p.read);
  const ratio = (a: number, b: number | undefined) => (b ? round(a / b, 2) : 1);
  return {
    phase: name,
    turns: ack.n,
    ackP50: round(ack.p50),
    ackP99: round(ack.p99),
    readP50: round(read.p50),
    readP99: round(read.p99),
    ...(idle
      ? {
          ackP99Ratio: ratio(ack.p99, summarize(idle.ack).p99),
          readP99Ratio: ratio(read.p99, summarize(idle.read).p99),
          ackP50Ratio: ratio(ack.p50, summarize(idle.ack).p50),
          readP50Ratio: ratio(read.p50, summarize(idle.read).p50),
        }
      : {}),
    failures: p.failures,
  };
};

/** How long the main thread was blocked (event-loop delay, ms): what every request waits behind. */
const loopDelay = (h: IntervalHistogram) => ({
  loopDelayP99: round(h.percentile(99) / 1e6),
  loopDelayMax: round(h.max / 1e6),
});

const run = promisify(execFile);
const BIN = join(import.meta.dirname, '..', 'bin', 'stratagate.mjs');

async function inProcess(): Promise<Target> {
  const t = await startTestNode('noisy_neighbour');
  return {
    request: (method, path, body, key) => t.request(method, path, body, key),
    otherTenantKey: async () => (await t.node.apiKeys.create('noisy', 'bench')).key,
    stop: () => t.stop(),
  };
}

/** `stratagate serve` on a new data directory, or a new database beside DATABASE_URL's. */
async function served(): Promise<Target> {
  const admin = process.env.DATABASE_URL;
  let store: string[];
  let drop: () => Promise<void>;
  if (admin) {
    const name = `noisy_bench_${Date.now()}`;
    const c = new pg.Client({ connectionString: admin });
    await c.connect();
    await c.query(`create database ${name}`);
    await c.end();
    const url = new URL(admin);
    url.pathname = `/${name}`;
    store = ['--database-url', url.toString()];
    drop = async () => {
      const d = new pg.Client({ connectionString: admin });
      await d.connect();
      await d.query(`drop database if exists ${name} with (force)`);
      await d.end();
    };
  } else {
    const dir = await mkdtemp(join(tmpdir(), 'sg-noisy-'));
    store = ['--data-dir', dir];
    drop = () => rm(dir, { recursive: true, force: true });
  }
  const server = await startServerWithKey(store, generateApiKey().key);
  const parse = (text: string): Json => {
    try {
      return JSON.parse(text) as Json;
    } catch {
      return {};
    }
  };
  return {
    async request(method, path, body, key) {
      const res = await request(
        server.url,
        method,
        path,
        key ?? server.key,
        body === undefined ? undefined : JSON.stringify(body),
      );
      return { status: res.status, body: parse(res.body) };
    },
    async otherTenantKey() {
      // Through the running server, as an operator makes one.
      const { stdout } = await run(process.execPath, [
        BIN,
        'keys',
        'create',
        '--tenant',
        'noisy',
        ...store,
      ]);
      const key = /\n(sg_\S+)/.exec(stdout)?.[1];
      if (!key) throw new Error(`no key in: ${stdout}`);
      return key;
    },
    async stop() {
      await server.stop();
      await closeClients();
      await drop();
    },
  };
}

const t = values.serve ? await served() : await inProcess();
const backend = (process.env.DATABASE_URL ? 'postgres' : 'pglite') + (values.serve ? ' serve' : '');
// Each figure is printed once known: a run stopped by a timeout still reports its phases.
const print = (line: object) => console.log(JSON.stringify({ backend, ...line }));
// The event-loop delay is this process's: the node's own only when it runs in process.
const loopDelayOf = (h: IntervalHistogram) => (values.serve ? {} : loopDelay(h));
try {
  const noisyKey = await t.otherTenantKey();
  // Warm-up: the first requests compile statements and plans.
  await quietLoop(t, 'quiet-warm', 3);
  let loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const idle = await quietLoop(t, 'quiet-idle');
  loop.disable();
  print({ ...report('idle', idle), ...loopDelayOf(loop) });
  loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const t0 = performance.now();
  const noisy = noisyLoad(t, noisyKey);
  const busy = await quietLoop(t, 'quiet-busy');
  loop.disable();
  print({
    ...report('busy', busy, idle),
    ...loopDelayOf(loop),
    chars: content.length,
    noisyTurns,
  });
  const { ackMs } = await noisy;
  print({ noisyAckS: ackMs.map((ms) => round(ms / 1000, 2)) });
  print({ noisyProjectedS: round((await projected(t, noisyKey, t0)) / 1000, 1) });
} finally {
  await t.stop();
}
