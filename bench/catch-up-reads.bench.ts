/**
 * `node --import tsx bench/catch-up-reads.bench.ts [--turns 8000] [--period-ms 200]
 * [--idle-seconds 20] [--roles ingest,projector,query]`
 *
 * Reads while the embedded store catches up on a long log (issue 38 item 4). A data
 * directory is filled by a server running ingest alone: `--turns` turns in a bulk space, and a
 * small quiet space. Then `stratagate serve` starts on it with every role (or `--roles`), so the
 * projector begins at position 0, and a reader asks every `--period-ms` for the quiet space's
 * status and a raw search in it, one after the other. The reads are timed while the projector
 * catches up, then for `--idle-seconds` once everything is projected. Prints per phase the
 * reads, their p50/p95/p99/max in ms, the reads that took over 5 s, the answers other than 200,
 * and the catch-up's records/s.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { generateApiKey } from '@stratagate/http';
import { closeClients, request } from './http.ts';
import { startServerWithKey, type BenchServer } from './server.ts';
import { round, summarize } from './stats.ts';

const { values } = parseArgs({
  options: {
    turns: { type: 'string', default: '8000' },
    'period-ms': { type: 'string', default: '200' },
    'idle-seconds': { type: 'string', default: '20' },
    roles: { type: 'string' },
  },
});
const turns = Number(values.turns);
const periodMs = Number(values['period-ms']);
const idleSeconds = Number(values['idle-seconds']);
const IN_FLIGHT = 16;
const SLOW_MS = 5_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const say = (line: string) => console.log(`[catch-up reads] ${line}`);

const TOPICS = ['garden', 'invoice', 'release', 'flight', 'recipe', 'contract', 'lecture'];
const PEOPLE = ['Ana', 'Ben', 'Chen', 'Dara', 'Eli'];

function turnBody(i: number, threads: number) {
  const topic = TOPICS[i % TOPICS.length]!;
  const person = PEOPLE[i % PEOPLE.length]!;
  return JSON.stringify({
    turnId: `t-${i}`,
    threadId: `th-${i % threads}`,
    occurredAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
    messages: [
      {
        role: 'user',
        name: person,
        content:
          `${person} asks about the ${topic} (item ${i}): can we move it to week ${i % 52}? ` +
          `The last note said the ${topic} depends on the ${TOPICS[(i + 3) % TOPICS.length]}.`,
      },
      {
        role: 'assistant',
        content: `Noted for ${person}: the ${topic} moves to week ${i % 52}, pending review ${i}.`,
      },
    ],
  });
}

async function post(server: BenchServer, path: string, body: string) {
  const res = await request(server.url, 'POST', path, server.key, body);
  if (res.status !== 202 && res.status !== 200) {
    throw new Error(`${path} answered ${res.status}: ${res.body}`);
  }
}

/** Fills the log only: a server with the ingest role projects nothing. */
async function seed(dir: string, key: string) {
  const server = await startServerWithKey(['--data-dir', dir, '--role', 'ingest'], key);
  try {
    for (const spaceId of ['bulk', 'quiet']) {
      const body = JSON.stringify({ blockSize: 4 });
      const res = await request(server.url, 'PUT', `/v1/spaces/${spaceId}/settings`, key, body);
      if (res.status !== 200) throw new Error(`settings answered ${res.status}: ${res.body}`);
    }
    for (let i = 0; i < 40; i++) {
      await post(server, '/v1/spaces/quiet/turns', turnBody(i, 2));
    }
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        for (let i = next++; i < turns; i = next++) {
          await post(server, '/v1/spaces/bulk/turns', turnBody(i, 50));
        }
      }),
    );
    say(`seeded ${turns} turns in ${round((performance.now() - t0) / 1000, 1)} s`);
  } finally {
    await server.stop();
  }
}

interface Sample {
  at: number;
  status: number;
  search: number;
  /** Answers other than 200, by endpoint and status. */
  failed: string[];
}

/** The request's time, and its status when it was not 200. */
async function timed(
  what: string,
  fn: () => Promise<{ status: number }>,
): Promise<{ ms: number; failed: string[] }> {
  const t0 = performance.now();
  const res = await fn();
  return {
    ms: performance.now() - t0,
    failed: res.status === 200 ? [] : [`${what} ${res.status}`],
  };
}

async function status(server: BenchServer) {
  const res = await request(server.url, 'GET', '/v1/spaces/bulk/status', server.key);
  if (res.status !== 200) return null;
  return JSON.parse(res.body) as { projectedPosition: number; logPosition: number };
}

function describe(name: string, samples: Sample[]) {
  const s = summarize(samples.map((x) => x.status));
  const q = summarize(samples.map((x) => x.search));
  const slow = samples.filter((x) => x.status > SLOW_MS || x.search > SLOW_MS).length;
  const failures: Record<string, number> = {};
  for (const f of samples.flatMap((x) => x.failed)) failures[f] = (failures[f] ?? 0) + 1;
  return {
    phase: name,
    reads: samples.length,
    status: { p50: round(s.p50), p95: round(s.p95), p99: round(s.p99), max: round(s.max) },
    search: { p50: round(q.p50), p95: round(q.p95), p99: round(q.p99), max: round(q.max) },
    over5s: slow,
    failures,
  };
}

async function main() {
  const dir = await mkdtemp(join(tmpdir(), 'sg-catchup-'));
  const key = generateApiKey().key;
  try {
    await seed(dir, key);
    const roles = values.roles ? ['--role', values.roles] : [];
    const server = await startServerWithKey(['--data-dir', dir, ...roles], key);
    const started = performance.now();
    const samples: Sample[] = [];
    let caughtUpAt: number | null = null;
    let head = 0;
    try {
      // The reader: status and a raw search in the quiet space, in turn, every period.
      const reading = (async () => {
        for (;;) {
          const t = performance.now();
          if (caughtUpAt !== null && t - caughtUpAt > idleSeconds * 1000) return;
          const status = await timed('status', () =>
            request(server.url, 'GET', '/v1/spaces/quiet/status', server.key),
          );
          const search = await timed('search', () =>
            request(
              server.url,
              'POST',
              '/v1/spaces/quiet/threads/th-0/search/raw',
              server.key,
              JSON.stringify({ query: 'when does the garden move' }),
            ),
          );
          samples.push({
            at: t,
            status: status.ms,
            search: search.ms,
            failed: [...status.failed, ...search.failed],
          });
          await sleep(Math.max(0, t + periodMs - performance.now()));
        }
      })();
      // The watcher: the bulk space's projection against the head, once a second.
      for (;;) {
        const s = await status(server);
        if (s) head = s.logPosition;
        if (s && s.projectedPosition >= s.logPosition && s.logPosition > 0) break;
        await sleep(1000);
      }
      caughtUpAt = performance.now();
      await reading;
    } finally {
      await server.stop();
    }
    const catchUpS = (caughtUpAt - started) / 1000;
    const during = samples.filter((x) => x.at < caughtUpAt!);
    const after = samples.filter((x) => x.at >= caughtUpAt!);
    const result = {
      turns,
      records: head,
      catchUpSeconds: round(catchUpS, 1),
      recordsPerSecond: Math.round(head / catchUpS),
      loadAverage: round(loadavg()[0]!, 1),
      phases: [describe('catching up', during), describe('caught up', after)],
    };
    console.log(JSON.stringify(result, null, 2));
  } finally {
    await closeClients();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
