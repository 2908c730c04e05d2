/**
 * `node --import tsx bench/offline-model.bench.ts [--blocks N] [--model-root DIR]… [--dump FILE]`
 *
 * Throughput of the offline provider (summary + extraction + graph proposal, in this thread)
 * per block of 12 turns of the bench's corpus (`search-corpus.ts`, fixed seed), and the time of
 * one block holding a single 2 MB user message. `--model-root` points at another checkout's
 * root to measure that version of `libs/model` with the same corpus (before/after runs). Given
 * twice or more, every block goes through each version in turn (the order alternating from
 * block to block), so on a busy machine all versions meet the same load; it then also prints
 * the ratio of their total times per round.
 * `--dump` writes every block's summary, extraction and graph proposal (of the first version)
 * to FILE, one JSON line per block, so two versions' outputs can be compared with `diff` (a
 * speed-up must not change what is extracted).
 * Prints medians; the results go to docs/benchmarks.md by hand. With one version it also
 * prints blocks per CPU-second of the process (user + system).
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { ModelPort, SummaryMessage } from '@stratagate/model';
import { graphSourceEventsOf } from '@stratagate/model/testing';
import { pastedText } from './pasted-text.ts';
import { generateTurn, prng, speakerFor } from './search-corpus.ts';

const { values } = parseArgs({
  options: {
    blocks: { type: 'string', default: '200' },
    dump: { type: 'string' },
    'model-root': { type: 'string', multiple: true, default: ['.'] },
    rounds: { type: 'string', default: '3' },
  },
});
const roots = values['model-root'].map((r) => resolve(r));
const models: ModelPort[] = [];
for (const root of roots) {
  const { createOfflineProvider } = (await import(
    pathToFileURL(resolve(root, 'libs/model/src/offline/offline-provider.ts')).href
  )) as { createOfflineProvider: () => ModelPort };
  models.push(createOfflineProvider());
}

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

async function oneBlock(
  model: ModelPort,
  blockId: string,
  messages: SummaryMessage[],
): Promise<number> {
  const t0 = performance.now();
  const summary = await model.summarizeBlock({ blockId, threadId: 't', messages });
  const extracted = await model.extractMemoryEvents!({
    blockId,
    threadId: 't',
    messages,
    timeline: [],
  });
  const events = graphSourceEventsOf(
    extracted.output.events,
    extracted.output.events.map((_, i) => `${blockId}_e${i}`),
  );
  const graph = await model.proposeGraph!({ events, nodes: [], edges: [] });
  const ms = performance.now() - t0;
  if (dump && model === models[0]) {
    appendFileSync(dump, `${JSON.stringify({ blockId, summary, extracted, graph })}\n`);
  }
  return ms;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
};

const count = Number(values.blocks);
const rounds = Number(values.rounds);
/** Every version, block after block; the order turns round from one block to the next. */
async function eachModel(b: number, run: (model: ModelPort) => Promise<number>): Promise<number[]> {
  const ms = Array.from(models, () => 0);
  const order = models.map((_, i) => i);
  if (b % 2 === 1) order.reverse();
  for (const i of order) ms[i] = await run(models[i] as ModelPort);
  return ms;
}
// Warm-up: the first calls load lexicons and compile.
for (let b = 0; b < 10; b += 1) {
  const messages = corpusBlock(-1 - b);
  await eachModel(b, (m) => oneBlock(m, `w${b}`, messages));
}
const perModel = models.map(() => ({
  rates: [] as number[],
  perBlock: [] as number[],
  big: [] as number[],
}));
const cpuRates: number[] = [];
const ratios: number[] = [];
const cpuSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};
for (let r = 0; r < rounds; r += 1) {
  // New blocks every round: a memo of earlier sentences must not make a round look fast.
  const blocks = Array.from({ length: count }, (_, b) => corpusBlock(r * count + b));
  const totals = Array.from(models, () => 0);
  const c0 = cpuSeconds();
  for (const [b, messages] of blocks.entries()) {
    const ms = await eachModel(b, (m) => oneBlock(m, `b${r}_${b}`, messages));
    ms.forEach((x, i) => {
      totals[i] = (totals[i] as number) + x;
      perModel[i]?.perBlock.push(x);
    });
  }
  totals.forEach((t, i) => perModel[i]?.rates.push(blocks.length / (t / 1000)));
  // Process CPU covers all versions at once; it is a rate of the one version measured alone.
  if (models.length === 1) cpuRates.push(blocks.length / (cpuSeconds() - c0));
  if (models.length > 1) ratios.push((totals[0] as number) / (totals[1] as number));
}
const big = bigMessage();
for (let r = 0; r < rounds; r += 1) {
  const ms = await eachModel(r, (m) => oneBlock(m, `big${r}`, big));
  ms.forEach((x, i) => perModel[i]?.big.push(x));
}
const round1 = (x: number) => Math.round(x * 10) / 10;
const round2 = (x: number) => Math.round(x * 100) / 100;
for (const [i, root] of roots.entries()) {
  const { rates, perBlock, big: bigTimes } = perModel[i]!;
  console.log(
    JSON.stringify({
      modelRoot: root,
      blocks: count,
      rounds: rates.length,
      blocksPerSecond: rates.map(round1),
      medianBlocksPerSecond: round1(median(rates)),
      ...(cpuRates.length > 0 ? { blocksPerCpuSecond: cpuRates.map(round1) } : {}),
      medianMsPerBlock: round2(median(perBlock)),
      p95MsPerBlock: round2(
        [...perBlock].sort((a, b) => a - b)[Math.floor(perBlock.length * 0.95)]!,
      ),
      bigTurnChars: big[0]!.content.length,
      bigTurnMs: bigTimes.map((x) => Math.round(x)),
    }),
  );
}
if (ratios.length > 0) {
  console.log(
    JSON.stringify({ timeRatioFirstToSecond: ratios.map(round2), median: round2(median(ratios)) }),
  );
}
