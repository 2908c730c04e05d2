import { performance } from 'node:perf_hooks';
import type { BenchServer } from './server.ts';
import { round, summarize } from './stats.ts';

let seq = 0;
function turnBody(spaceTurn: number) {
  const i = ++seq;
  return JSON.stringify({
    turnId: `bench-${process.pid}-${i}`,
    threadId: `thread-${spaceTurn % 3}`,
    occurredAt: new Date(Date.UTC(2024, 0, 1, 0, 0, i % 86_400)).toISOString(),
    messages: [
      {
        role: 'user',
        name: 'Mel',
        content: `Turn ${i}: I finished the ${i % 17}th painting and we plan a trip to Lisbon next month.`,
      },
      {
        role: 'assistant',
        content: `That sounds great. How long did painting number ${i % 17} take? I will remember the Lisbon trip.`,
      },
    ],
  });
}

async function postTurn(server: BenchServer, space: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${server.url}/v1/spaces/${space}/turns`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
    body: turnBody(seq),
  });
  await res.arrayBuffer();
  if (res.status !== 202) throw new Error(`ingest answered ${res.status}`);
  return performance.now() - started;
}

/** Posts `total` turns with `concurrency` requests in flight, spread over `spaces` spaces. */
export async function closedLoop(
  server: BenchServer,
  total: number,
  concurrency: number,
  spaces: number,
  prefix: string,
) {
  let next = 0;
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const n = next++;
        latencies.push(await postTurn(server, `${prefix}-${n % spaces}`));
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return {
    turnsPerSecond: round(total / seconds),
    seconds: round(seconds, 2),
    latency: summarize(latencies),
  };
}

/** Posts at a fixed arrival rate (open loop), so latency is not hidden by back-pressure. */
export async function openLoop(
  server: BenchServer,
  rate: number,
  seconds: number,
  spaces: number,
  prefix: string,
) {
  const total = rate * seconds;
  const latencies: number[] = [];
  const started = performance.now();
  const inflight: Promise<void>[] = [];
  for (let n = 0; n < total; n++) {
    const due = started + (n * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    inflight.push(
      postTurn(server, `${prefix}-${n % spaces}`).then((ms) => void latencies.push(ms)),
    );
  }
  await Promise.all(inflight);
  return { rate, latency: summarize(latencies) };
}

async function positions(server: BenchServer, space: string) {
  const res = await fetch(`${server.url}/v1/spaces/${space}/status`, {
    headers: { authorization: `Bearer ${server.key}` },
  });
  const body = (await res.json()) as { projectedPosition: number; logPosition: number };
  return body;
}

/** Seconds from `since` until the projector has applied everything in the log. */
export async function catchUpSeconds(
  server: BenchServer,
  space: string,
  since: number,
  timeoutS = 120,
) {
  for (;;) {
    const p = await positions(server, space);
    const elapsed = (performance.now() - since) / 1000;
    if (p.projectedPosition >= p.logPosition) return round(elapsed, 2);
    if (elapsed > timeoutS) return Infinity;
    await new Promise((r) => setTimeout(r, 50));
  }
}
