/**
 * `node --import tsx bench/offline-model.bench.ts [--blocks N] [--model-root DIR] [--dump FILE]`
 *
 * Throughput of the offline provider (summary + extraction + graph proposal, in this thread)
 * per block of 12 turns of the bench's corpus (`search-corpus.ts`, fixed seed), and the time of
 * one block holding a single 2 MB user message. `--model-root` points at another checkout's
 * root to measure that version of `libs/model` with the same corpus (before/after runs).
 * `--dump` writes every block's summary, extraction and graph proposal to FILE, one JSON line
 * per block, so two versions' outputs can be compared with `diff` (a speed-up must not change
 * what is extracted).
 * Prints medians; the results go to docs/benchmarks.md by hand. Beside the wall-clock rates it
 * prints blocks per CPU-second of the process (user + system), which other load on a shared
 * machine disturbs much less.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { GraphSourceEvent, ModelPort, SummaryMessage } from '@stratagate/model';
import { pastedText } from './pasted-text.ts';
import { generateTurn, prng, speakerFor } from './search-corpus.ts';

const { values } = parseArgs({
  options: {
    blocks: { type: 'string', default: '200' },
    dump: { type: 'string' },
    'model-root': { type: 'string', default: '.' },
    rounds: { type: 'string', default: '3' },
  },
});
const root = resolve(values['model-root']);
const { createOfflineProvider } = (await import(
  pathToFileURL(resolve(root, 'libs/model/src/offline/offline-provider.ts')).href
)) as { createOfflineProvider: () => ModelPort };
const model = createOfflineProvider();

const TURNS_PER_BLOCK = 12;
const rng = prng(37);

function corpusBlock(b: number): SummaryMessage[] {
  const speaker = speakerFor(rng);
  const start = Date.UTC(2026, 0, 1) + b * 3_600_000;
  return Array.from({ length: TURNS_PER_BLOCK }, () => generateTurn(rng, speaker))
    .flat()
    .map((m, i) => ({
      messageId: `m${b}_${i}`,
      role: m.role,
      ...(m.name ? { name: m.name } : {}),
      content: m.content,
      occurredAt: new Date(start + i * 30_000).toISOString(),
    }));
}

/** A 2 MB paste: prose sentences with names, dates and code, repeated with variations. */
function bigMessage(): SummaryMessage[] {
  return [
    {
      messageId: 'big',
      role: 'user',
      name: 'Lee',
      content: pastedText(2_000_000),
      occurredAt: '2026-11-30T10:00:00Z',
    },
    { messageId: 'ack', role: 'assistant', content: 'Noted.', occurredAt: '2026-11-30T10:01:00Z' },
  ];
}

const dump = values.dump;
if (dump) writeFileSync(dump, '');

async function oneBlock(blockId: string, messages: SummaryMessage[]): Promise<number> {
  const t0 = performance.now();
  const summary = await model.summarizeBlock({ blockId, threadId: 't', messages });
  const extracted = await model.extractMemoryEvents!({
    blockId,
    threadId: 't',
    messages,
    timeline: [],
  });
  const events: GraphSourceEvent[] = extracted.output.events.map((e, i) => ({
    id: `${blockId}_e${i}`,
    title: e.title,
    summary: e.summary,
    tags: e.tags,
    scope: e.scope,
    eventType: e.temporal.eventType,
    participants: e.temporal.participants,
    sourceTime: e.temporal.happenedStart ?? e.temporal.mentionedAt ?? '',
  }));
  const graph = await model.proposeGraph!({ events, nodes: [], edges: [] });
  const ms = performance.now() - t0;
  if (dump) appendFileSync(dump, `${JSON.stringify({ blockId, summary, extracted, graph })}\n`);
  return ms;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
};

const count = Number(values.blocks);
// Warm-up: the first calls load lexicons and compile.
for (let b = 0; b < 10; b += 1) await oneBlock(`w${b}`, corpusBlock(-1 - b));
const rates: number[] = [];
const cpuRates: number[] = [];
const cpuSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};
const perBlock: number[] = [];
let blocks: SummaryMessage[][] = [];
for (let r = 0; r < Number(values.rounds); r += 1) {
  // New blocks every round: a memo of earlier sentences must not make a round look fast.
  blocks = Array.from({ length: count }, (_, b) => corpusBlock(r * count + b));
  const t0 = performance.now();
  const c0 = cpuSeconds();
  for (const [b, messages] of blocks.entries())
    perBlock.push(await oneBlock(`b${r}_${b}`, messages));
  rates.push(blocks.length / ((performance.now() - t0) / 1000));
  cpuRates.push(blocks.length / (cpuSeconds() - c0));
}
const big = bigMessage();
const bigTimes: number[] = [];
for (let r = 0; r < Number(values.rounds); r += 1) bigTimes.push(await oneBlock(`big${r}`, big));
console.log(
  JSON.stringify({
    modelRoot: root,
    blocks: count,
    rounds: rates.length,
    blocksPerSecond: rates.map((x) => Math.round(x * 10) / 10),
    medianBlocksPerSecond: Math.round(median(rates) * 10) / 10,
    blocksPerCpuSecond: cpuRates.map((x) => Math.round(x * 10) / 10),
    medianMsPerBlock: Math.round(median(perBlock) * 100) / 100,
    p95MsPerBlock:
      Math.round([...perBlock].sort((a, b) => a - b)[Math.floor(perBlock.length * 0.95)]! * 100) /
      100,
    bigTurnChars: big[0]!.content.length,
    bigTurnMs: bigTimes.map((x) => Math.round(x)),
  }),
);
