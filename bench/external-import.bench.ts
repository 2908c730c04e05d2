/**
 * `node --import tsx bench/external-import.bench.ts [--rounds N] [--turns T]`
 *
 * External memory import (ADR 0047) on in-memory PGlite (or DATABASE_URL), one node with every
 * role and the offline provider (the offline decider), requests by `inject`. A space with T
 * turns is seeded and settled; then N rounds of: preview an export of 200 candidates (40 the same
 * as existing events, 160 new), commit it, wait for its graph job, undo it. Prints one JSON
 * object of latencies in ms.
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { startTestNode, type TestNode } from '../test/harness.ts';
import { generateTurn, prng, speakerFor } from './search-corpus.ts';
import { round, summarize } from './stats.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    turns: { type: 'string', default: '120' },
  },
});
const rounds = Number(values.rounds);
const turns = Number(values.turns);
const SPACE = 'bench-import';

const ms = (t0: number) => performance.now() - t0;
const stats = (samples: number[]) => {
  const s = summarize(samples);
  return { n: s.n, p50: round(s.p50), p95: round(s.p95), max: round(s.max) };
};

const NEW_TOPICS = ['hiking', 'violin', 'sourdough', 'chess', 'kayaking', 'pottery', 'ceramics'];

function exportOf(round: number, existing: { title: string; summary: string }[]) {
  const candidates = [
    ...existing
      .slice(0, 40)
      .map((e) => ({ memoryKind: 'fact', title: e.title, summary: e.summary })),
    ...Array.from({ length: 200 - Math.min(40, existing.length) }, (_, i) => ({
      memoryKind: 'fact',
      category: 'preference',
      title: `Member ${round}-${i} enjoys ${NEW_TOPICS[i % NEW_TOPICS.length]}`,
      summary: `Member ${round}-${i} spends weekend ${i} on ${NEW_TOPICS[i % NEW_TOPICS.length]} with friend ${i}.`,
      tags: [NEW_TOPICS[i % NEW_TOPICS.length]!],
    })),
  ];
  return JSON.stringify({ format: 'stratagate.external-memory.v2', candidates });
}

const t: TestNode = await startTestNode('import_bench');
try {
  const rng = prng(47);
  const speaker = speakerFor(rng);
  const sg = t.client;
  await sg.call('configureSpace', { spaceId: SPACE, body: { blockSize: 6 } });
  for (let i = 0; i < turns; i += 1) {
    await sg.call('recordTurn', {
      spaceId: SPACE,
      body: {
        turnId: `t${i}`,
        threadId: 'chat',
        occurredAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
        messages: generateTurn(rng, speaker),
      },
    });
  }
  await t.settle(SPACE, undefined, 900_000);
  const existing = (await sg.call('listMemoryEvents', { spaceId: SPACE, limit: 100 })).events;

  const preview: number[] = [];
  const commit: number[] = [];
  const graph: number[] = [];
  const undo: number[] = [];
  let counts: unknown = null;
  for (let r = 0; r < rounds; r += 1) {
    const importId = `bench-${r}`;
    let t0 = performance.now();
    const view = await sg.call('previewImport', {
      spaceId: SPACE,
      body: { importId, text: exportOf(r, existing) },
    });
    preview.push(ms(t0));
    counts = view.counts;
    t0 = performance.now();
    await sg.call('commitImport', {
      spaceId: SPACE,
      importId,
      body: { baseRevision: view.baseRevision },
    });
    commit.push(ms(t0));
    t0 = performance.now();
    await t.settle(SPACE, undefined, 900_000);
    graph.push(ms(t0));
    t0 = performance.now();
    await sg.call('undoImport', { spaceId: SPACE, importId });
    undo.push(ms(t0));
  }
  console.log(
    JSON.stringify(
      {
        backend: process.env.DATABASE_URL ? 'postgres' : 'pglite',
        turns,
        existingEvents: existing.length,
        rounds,
        lastPreviewCounts: counts,
        preview200: stats(preview),
        commit: stats(commit),
        graphJobSettled: stats(graph),
        undo: stats(undo),
      },
      null,
      1,
    ),
  );
} finally {
  await t.stop();
}
