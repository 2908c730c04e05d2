/**
 * `npm run bench` — on the embedded default (PGlite) and, when DATABASE_URL is set, on that
 * Postgres server (a fresh database per run, dropped after):
 *
 * - ingest: throughput and ack latency over HTTP, projection catch-up after a burst;
 * - search: search/recall latency against space size (1k, 10k, 100k memory events), projection
 *   throughput from position 0 (bench/search.bench.ts), plotted to docs/benchmarks-latency.svg.
 *
 * Writes docs/benchmarks.md. Flags (after `npm run bench --`):
 *   --only ingest|search   run one part; the other part's sections are kept from the current file
 *   --sizes 1000,10000     memory events per space for the search part (default 1000,10000,100000)
 *   --requests N           measured requests per endpoint and size (default 200), --warmup N (48: one pass over the query set, so the measured requests are the steady state)
 *   --as-is-budget S       seconds the server may project without planner statistics before the
 *                          bench runs ANALYZE and lets it finish (default 360)
 *   --measure-budget S     stop measuring a size after S seconds, but not before 100 requests per
 *                          endpoint (default 600)
 *   --seed-cache DIR       keep the generated spaces' records in DIR and replay them next time
 *                          (only valid with the same bench code; default: regenerate per run)
 *   --resume               reuse the search results an interrupted run with the same options
 *                          saved in bench/out/search-partial
 *   --keep-store           keep each size's database or PGlite directory after the run
 *   --backends pglite,postgres   which backends the search part runs (default both, postgres
 *                          only with DATABASE_URL); with --resume, results of the others are kept
 *   --quick                reduced sizes everywhere
 * Medians and percentiles from one run on this machine.
 */
import { readFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import * as prettier from 'prettier';
import { closeClients } from './http.ts';
import { catchUpSeconds, closedLoop, lagTracker, openLoop, quiescent } from './ingest.bench.ts';
import { searchBench } from './search.bench.ts';
import { SEARCH_SECTION, SVG_NAME, latencySvg, searchMarkdown } from './search-report.ts';
import { peakRssMiB, startServer, type BenchServer } from './server.ts';
import { round } from './stats.ts';

const args = process.argv.slice(2);
function flag(name: string): string | undefined {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const value = args[i + 1];
  if (value === undefined || value.startsWith('--')) throw new Error(`${name} needs a value`);
  return value;
}
const quick = args.includes('--quick');
const SCALE = quick ? 0.1 : 1;
const PARTS = ['ingest', 'search'] as const;
type Part = (typeof PARTS)[number];
const only = (flag('--only') ?? PARTS.join(',')).split(',').map((p) => p.trim());
for (const p of only) {
  if (!(PARTS as readonly string[]).includes(p)) throw new Error(`--only: unknown part '${p}'`);
}
const runs = (part: Part) => only.includes(part);
const sizes = (flag('--sizes') ?? (quick ? '1000,10000' : '1000,10000,100000'))
  .split(',')
  .map((s) => Number(s.replace(/[_k]/g, (c) => (c === 'k' ? '000' : ''))));
if (sizes.some((n) => !Number.isInteger(n) || n <= 0))
  throw new Error('--sizes: positive integers');
const requests = Number(flag('--requests') ?? (quick ? 50 : 200));
const warmup = Number(flag('--warmup') ?? 48);
const asIsBudgetSeconds = Number(flag('--as-is-budget') ?? 360);
const measureBudgetSeconds = Number(flag('--measure-budget') ?? 600);
const seedCache = flag('--seed-cache');
const resume = args.includes('--resume');
const keepStore = args.includes('--keep-store');
const backends = (flag('--backends') ?? 'pglite,postgres').split(',').map((b) => b.trim());
for (const b of backends) {
  if (b !== 'pglite' && b !== 'postgres') throw new Error(`--backends: unknown backend '${b}'`);
}

const ROOT = join(import.meta.dirname, '..');
const DOC = join(ROOT, 'docs', 'benchmarks.md');

interface BackendResult {
  backend: string;
  throughput: number[];
  closed: Awaited<ReturnType<typeof closedLoop>>;
  /** Right after the closed loops, while the consolidator works through their blocks. */
  open: Awaited<ReturnType<typeof openLoop>>;
  /** From a quiet server: the steady state at 200 turns/s, consolidation of its own blocks included. */
  openQuiet: Awaited<ReturnType<typeof openLoop>>;
  bursts: BurstResult[];
  rssMiB: number | null;
}

interface BurstResult {
  burst: Awaited<ReturnType<typeof closedLoop>>;
  lag: Awaited<ReturnType<ReturnType<typeof lagTracker>['lagAfter']>>;
  catchUp: number;
  /** Seconds waited for a quiet server before the burst. */
  quietS: number;
}

/**
 * One closed loop of the measured size before any measurement, so the measured runs see code V8
 * has already compiled. After a 300-turn warm-up the first measured run took about twice the
 * server CPU per turn of the later ones (V8's compiler threads busy), and the median of three
 * runs measured the warm-up, not the server (docs/benchmarks.md).
 */
async function warmUp(server: BenchServer): Promise<void> {
  await closedLoop(server, Math.ceil(3000 * SCALE), 32, 20, 'warm');
}

async function measure(backend: string, server: BenchServer): Promise<BackendResult> {
  console.log(`[${backend}] warm-up`);
  await warmUp(server);
  await catchUpSeconds(server, 'warm-0', performance.now());
  const throughput: number[] = [];
  let closed!: BackendResult['closed'];
  for (let run = 1; run <= 3; run++) {
    closed = await closedLoop(server, Math.ceil(3000 * SCALE), 32, 20, `tp${run}`);
    throughput.push(closed.turnsPerSecond);
    console.log(`[${backend}] closed loop run ${run}: ${closed.turnsPerSecond} turns/s`);
    await catchUpSeconds(server, `tp${run}-0`, performance.now());
  }
  console.log(`[${backend}] open loop 200 turns/s for ${Math.ceil(10 * SCALE)} s`);
  const open = await openLoop(server, 200, Math.ceil(10 * SCALE), 20, 'rate');
  await catchUpSeconds(server, 'rate-0', performance.now());
  // The same load again once the server is quiet. The first open loop starts while the
  // consolidator is still working through the closed loops' blocks (it waits while appends come
  // faster than STRATAGATE_CONSOLIDATOR_YIELD_RATE, ADR 0026); at 200 turns/s it does not wait,
  // so this one includes the consolidation of its own blocks, as a steady 200 turns/s would.
  const quietBeforeOpenS = await quiescent(server, 'rate-0');
  console.log(
    `[${backend}] open loop 200 turns/s from a quiet server (quiet after ${quietBeforeOpenS} s)`,
  );
  const openQuiet = await openLoop(server, 200, Math.ceil(10 * SCALE), 20, 'rateq');
  await catchUpSeconds(server, 'rateq-0', performance.now());
  const burstTurns = Math.ceil(10_000 * SCALE);
  const bursts: BurstResult[] = [];
  for (let run = 1; run <= 3; run++) {
    // Each burst starts from a quiet server: projected, and the consolidator done with the
    // blocks of what came before (its backlog would otherwise decide the result).
    const quietS = await quiescent(server, 'rate-0');
    console.log(`[${backend}] burst ${run} of ${burstTurns} turns (quiet after ${quietS} s)`);
    // The positions are global; an existing space reaches them (the burst's own is not there yet).
    const tracker = lagTracker(server, 'rate-0');
    const burst = await closedLoop(server, burstTurns, 64, 50, `burst${run}`);
    const burstEnd = performance.now();
    const lag = await tracker.lagAfter(burstEnd);
    const catchUp = await catchUpSeconds(server, `burst${run}-0`, burstEnd);
    console.log(
      `[${backend}] burst ${run}: ${burst.turnsPerSecond} turns/s; projection lag under 1 s ${lag.underThresholdAfterS} s after it (largest ${lag.maxLagS} s), caught up ${catchUp} s after`,
    );
    bursts.push({ burst, lag, catchUp, quietS });
  }
  return {
    backend,
    throughput,
    closed,
    open,
    openQuiet,
    bursts,
    rssMiB: await peakRssMiB(server.child.pid!),
  };
}

/** Ingest alone (no projector, no consolidator in the process): the ceiling the others share. */
async function embeddedIngestOnly(): Promise<number[]> {
  const dir = await mkdtemp(join(tmpdir(), 'sg-bench-'));
  const server = await startServer(['--data-dir', dir, '--role', 'ingest,query']);
  try {
    await warmUp(server);
    const runs: number[] = [];
    for (let run = 1; run <= 3; run++) {
      runs.push(
        (await closedLoop(server, Math.ceil(3000 * SCALE), 32, 20, `io${run}`)).turnsPerSecond,
      );
    }
    console.log(`[embedded ingest only] ${runs.join(', ')} turns/s`);
    return runs;
  } finally {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

async function embedded(): Promise<BackendResult> {
  const dir = await mkdtemp(join(tmpdir(), 'sg-bench-'));
  const server = await startServer(['--data-dir', dir]);
  try {
    return await measure('embedded (PGlite)', server);
  } finally {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

async function postgres(base: string): Promise<BackendResult> {
  const name = `sg_bench_${Date.now()}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  const server = await startServer(['--database-url', url.toString()]);
  try {
    return await measure('local Postgres', server);
  } finally {
    await server.stop();
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

/** What the server's backpressure setting (ADR 0031) was, as the environment passed it on. */
function gateText(maxLagMs: string | undefined): string {
  if (maxLagMs === '0')
    return 'Turns did not wait for projection (`STRATAGATE_MAX_PROJECTION_LAG_MS=0`).';
  return [
    `Turns wait while the lag is over ${maxLagMs ?? '3000'} ms (\`STRATAGATE_MAX_PROJECTION_LAG_MS\`, ADR 0031).`,
    'A burst therefore runs at the pace the projector keeps, and the closed loops do too once they',
    'reach the bound.',
  ].join('\n');
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const INGEST_SECTIONS = [
  'Ingest (HTTP',
  'Projection catch-up after a burst',
  'Where the embedded time goes',
];

function ingestMarkdown(results: BackendResult[], ingestOnly: number[]): string {
  const cpu = cpus();
  const lines = [
    '## Ingest (HTTP `POST /v1/spaces/{space}/turns`, acknowledged once committed)',
    '',
    `Generated by \`${command}\`${quick ? ' (reduced sizes)' : ''} on ${new Date().toISOString().slice(0, 10)}.`,
    `Machine: ${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, ${round(totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}.`,
    'The server runs as its own process (`stratagate serve`, all four roles; on Postgres the projector',
    'and the consolidator run in a worker thread of that process, ADR 0016); the load generator is the',
    'bench process on the same machine, over loopback HTTP. A closed-loop run is 3,000 turns with 32',
    'in flight over 20 spaces; one loop of the same size, not measured, warms the server up first',
    '(before 2026-12-02 it was 300 turns, after which the first measured run took about twice the',
    'server CPU per turn of the third).',
    '',
    '| backend | throughput, median of 3 closed-loop runs (turns/s) | runs | ack p50 / p99 at 200 turns/s, quiet server (ms) | ack p50 / p99 at 200 turns/s, right after the closed loops (ms) | closed-loop p50 / p99 at 32 in flight (ms) | peak RSS (MiB) |',
    '| --- | ---: | --- | ---: | ---: | ---: | ---: |',
    ...results.map(
      (r) =>
        `| ${r.backend} | ${median(r.throughput)} | ${r.throughput.join(', ')} | ${round(r.openQuiet.latency.p50)} / ${round(r.openQuiet.latency.p99)} | ${round(r.open.latency.p50)} / ${round(r.open.latency.p99)} | ${round(r.closed.latency.p50)} / ${round(r.closed.latency.p99)} | ${r.rssMiB ?? 'n/a'} |`,
    ),
    '',
    `Ack latency at 200 turns/s is measured twice, ${Math.ceil(10 * SCALE)} s each (${200 * Math.ceil(10 * SCALE)} turns over 20 spaces, at a`,
    'fixed arrival rate). "Right after the closed loops" starts once their turns are projected,',
    'while the consolidator is still working through their blocks: it waits while appends come',
    'faster than `STRATAGATE_CONSOLIDATOR_YIELD_RATE` (500 records/s by default, ADR 0026), so much',
    'of their consolidation falls in this loop. "Quiet server" starts once nothing is left to',
    'project or consolidate: the steady state at 200 turns/s. That rate is under the one at which',
    "the consolidator waits, so it works on the loop's own blocks as they seal.",
    '',
    '## Projection catch-up after a burst',
    '',
    '| backend | burst | turns | burst rate (turns/s) | seconds from end of burst until the lag stays under 1 s | largest lag after the burst (s) | seconds from end of burst until projected position = log head |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...results.flatMap((r) =>
      r.bursts.map(
        (b, i) =>
          `| ${r.backend} | ${i + 1} | ${b.burst.latency.n} | ${b.burst.turnsPerSecond} | ${b.lag.underThresholdAfterS} | ${b.lag.maxLagS} | ${b.catchUp} |`,
      ),
    ),
    '',
    ...results.map(
      (r) =>
        `Median of the three bursts, ${r.backend}: lag under 1 s ${median(r.bursts.map((b) => b.lag.underThresholdAfterS))} s after the burst, projected = head after ${median(r.bursts.map((b) => b.catchUp))} s.`,
    ),
    '',
    'Each burst (64 in flight over 50 new spaces) starts once the server is quiet: everything',
    'projected and no record appended for 2 s, so the consolidator has finished the blocks of the',
    'runs before.',
    '',
    'The lag is the age of the oldest record not yet applied. While the burst runs, the bench samples',
    'the log head every 100 ms; that gives when each position was appended, at most one sample late.',
    'After the burst it samples the projected position. Both come from the `status` of a space',
    'projected before the burst; the positions are global. The projected position counts a sealed',
    'block as applied only once its messages are in raw search too (ADR 0014). The last column is',
    "stricter: it waits until the projector has applied everything, including the consolidator's",
    "records for the burst's blocks, which keep arriving after it. Before 2026-12-03 the samples were",
    "read through the burst's own space, which did not exist yet when the burst began. The first",
    'sample was then a 404, and no later sample counted. So the lag columns of earlier runs measured',
    'the time until everything was applied (ADR 0031).',
    '',
    gateText(process.env.STRATAGATE_MAX_PROJECTION_LAG_MS),
    '',
    'Targets (issue 2): ≥ 1,000 turns/s embedded, ≥ 2,000 turns/s on local Postgres, p99 ack ≤ 50 ms',
    'at 200 turns/s, projection lag back under 1 s within 5 s after a 10,000-turn burst.',
    '',
    '## Where the embedded time goes',
    '',
    `The same closed loop against a process running only the ingest and query roles reaches a median of ${median(ingestOnly)} turns/s (runs ${ingestOnly.join(', ')}).`,
    'With all four roles on a new data directory, ingest and query run on the main thread with the',
    "log's PGlite store, and the projector and the consolidator (offline summaries, memory-event",
    'extraction and graph proposals for every sealed block) run in a worker thread with the',
    "read-model store (ADR 0030). The two threads share the machine's cores with the load",
    'generator, and each reaches the other store through a port.',
    '',
  ];
  if (results.length > 1) {
    const [a, b] = results;
    lines.push(
      `Ratio local Postgres / embedded throughput: ${round(median(b!.throughput) / median(a!.throughput), 2)}.`,
      '',
    );
  }
  return lines.join('\n');
}

/** The command as a reader would type it (a password in DATABASE_URL is masked). */
const command = (() => {
  const base = process.env.DATABASE_URL;
  let env = '';
  if (base) {
    const url = new URL(base);
    if (url.password) url.password = '***';
    env = `DATABASE_URL=${url.toString()} `;
  }
  return `${env}npm run bench${args.length > 0 ? ` -- ${args.join(' ')}` : ''}`;
})();

interface Section {
  heading: string;
  text: string;
}

/** `## ` sections of a markdown document (a section runs to the next `## `), after its head. */
function sections(markdown: string): Section[] {
  const out: Section[] = [];
  for (const chunk of markdown.split(/^(?=## )/m)) {
    if (!chunk.startsWith('## ')) continue;
    out.push({ heading: chunk.slice(3, chunk.indexOf('\n')).trim(), text: chunk.trimEnd() });
  }
  return out;
}

const ownedBy = (heading: string): Part | null =>
  INGEST_SECTIONS.some((h) => heading.startsWith(h))
    ? 'ingest'
    : heading.startsWith(SEARCH_SECTION)
      ? 'search'
      : null;

const started = performance.now();
const base = process.env.DATABASE_URL;
const fresh: Section[] = [];
if (runs('ingest')) {
  const ingestOnly = await embeddedIngestOnly();
  const results = [await embedded()];
  if (base) results.push(await postgres(base));
  else console.log('DATABASE_URL unset: skipping the local Postgres run');
  fresh.push(...sections(ingestMarkdown(results, ingestOnly)));
}
if (runs('search')) {
  const result = await searchBench({
    sizes,
    requests,
    warmup,
    postgresUrl: base,
    outDir: join(ROOT, 'bench', 'out'),
    asIsBudgetSeconds,
    measureBudgetSeconds,
    seedCache,
    resume,
    backends: backends as ('pglite' | 'postgres')[],
    keepStore,
  });
  await writeFile(join(ROOT, 'docs', SVG_NAME), latencySvg(result));
  fresh.push(...sections(searchMarkdown(result, command)));
}

// Parts not run this time keep their sections from the current file.
const previous = sections(await readFile(DOC, 'utf8').catch(() => ''));
const kept = (part: Part) =>
  runs(part)
    ? fresh.filter((s) => ownedBy(s.heading) === part)
    : previous.filter((s) => ownedBy(s.heading) === part);
const body = [
  ...kept('ingest'),
  ...kept('search'),
  ...previous.filter((s) => ownedBy(s.heading) === null),
];
const doc = [
  '# Benchmarks',
  '',
  'Written by `npm run bench` (`-- --only ingest` or `-- --only search` regenerates one part and',
  'keeps the other). Shared, noisy machines: compare ratios within one run, not absolute numbers',
  'across runs.',
  '',
  ...body.map((s) => `${s.text}\n`),
].join('\n');
const formatted = await prettier.format(doc, {
  ...((await prettier.resolveConfig(DOC)) ?? {}),
  filepath: DOC,
});
await writeFile(DOC, formatted);
console.log(formatted);
await closeClients();
console.log(`bench wall time: ${round((performance.now() - started) / 1000, 0)} s`);
