import { performance } from 'node:perf_hooks';
import { request } from './http.ts';
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
  const res = await request(
    server.url,
    'POST',
    `/v1/spaces/${space}/turns`,
    server.key,
    turnBody(seq),
  );
  if (res.status !== 202) throw new Error(`ingest answered ${res.status}: ${res.body}`);
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

/**
 * The log head and the projected position (both global on the Postgres-table log), read through
 * the status of `space`, which must already be projected: a space the projector has not reached
 * answers 404 without positions. (Until 2026-12-03 the lag tracker sampled the burst's own new
 * space: its first sample was that 404, and no later sample counted, so every lag it reported was
 * the time since the burst began, and "under 1 s" meant "caught up".)
 */
async function positions(server: BenchServer, space: string) {
  const res = await fetch(`${server.url}/v1/spaces/${space}/status`, {
    headers: { authorization: `Bearer ${server.key}` },
  });
  const body = (await res.json()) as { projectedPosition?: number; logPosition?: number };
  if (res.status === 404) return null;
  if (res.status !== 200 || body.projectedPosition == null || body.logPosition == null) {
    throw new Error(`status of space ${space} answered ${res.status}: ${JSON.stringify(body)}`);
  }
  return { projectedPosition: body.projectedPosition, logPosition: body.logPosition };
}

/** `positions` of a space that must be projected already (the lag tracker's samples). */
async function projectedSpacePositions(server: BenchServer, space: string) {
  const p = await positions(server, space);
  if (!p) throw new Error(`lag tracker: space ${space} is not projected yet; give one that is`);
  return p;
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
    if (p && p.projectedPosition >= p.logPosition) return round(elapsed, 2);
    if (elapsed > timeoutS) return Infinity;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Projection lag in time, as an operator sees it: the age of the oldest record not yet applied.
 * `space` only reaches the status endpoint (the positions are global): it must be projected
 * already when the tracker starts.
 * While the load runs, the log head is sampled (every `sampleMs`, 100 ms), which gives when each position
 * was appended (the first sample that saw it; at most one sample late). `lagAfter(end)` then polls
 * the projected position until it reaches the head and returns the seconds after `end` from which
 * the lag stayed under `thresholdS`, with the largest lag seen after `end`.
 */
export function lagTracker(server: BenchServer, space: string, sampleMs = 100) {
  const appended: { at: number; position: number }[] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const p = await projectedSpacePositions(server, space);
      const at = performance.now();
      if (appended.length === 0 || p.logPosition > appended[appended.length - 1]!.position) {
        appended.push({ at, position: p.logPosition });
      }
      await new Promise((r) => setTimeout(r, sampleMs));
    }
  })();
  /** When `position` was first seen in the log (binary search over the samples). */
  const appendedAt = (position: number): number => {
    let lo = 0;
    let hi = appended.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (appended[mid]!.position >= position) hi = mid;
      else lo = mid + 1;
    }
    return appended[lo]!.at;
  };
  return {
    async lagAfter(end: number, thresholdS = 1, timeoutS = 120) {
      let under: number | null = null;
      let maxLagS = 0;
      for (;;) {
        const p = await projectedSpacePositions(server, space);
        const now = performance.now();
        if (appended.length === 0 || p.logPosition > appended[appended.length - 1]!.position) {
          appended.push({ at: now, position: p.logPosition });
        }
        const lagS =
          p.projectedPosition >= p.logPosition
            ? 0
            : (now - appendedAt(p.projectedPosition + 1)) / 1000;
        maxLagS = Math.max(maxLagS, lagS);
        if (lagS >= thresholdS) under = null;
        else under ??= now;
        if (lagS === 0 || (now - end) / 1000 > timeoutS) break;
        await new Promise((r) => setTimeout(r, sampleMs));
      }
      sampling = false;
      await sampler;
      return {
        underThresholdAfterS: under === null ? Infinity : round(Math.max(0, under - end) / 1000, 2),
        maxLagS: round(maxLagS, 2),
      };
    },
  };
}

/**
 * Waits until the server is quiet: everything in the log projected and no record appended for
 * `quietMs` (the consolidator has no job left). Returns the seconds waited.
 */
export async function quiescent(
  server: BenchServer,
  space: string,
  quietMs = 2_000,
  timeoutS = 300,
) {
  const started = performance.now();
  let head = -1;
  let movedAt = started;
  for (;;) {
    const p = await projectedSpacePositions(server, space);
    const now = performance.now();
    if (p.logPosition !== head) {
      head = p.logPosition;
      movedAt = now;
    }
    if (p.projectedPosition >= p.logPosition && now - movedAt >= quietMs) break;
    if ((now - started) / 1000 > timeoutS) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  return round((performance.now() - started) / 1000, 1);
}
