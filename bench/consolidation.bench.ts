/**
 * `node --import tsx bench/consolidation.bench.ts [--turns N] [--spaces S] [--block-size B]`
 *
 * Consolidation of an import that is already ingested and projected: S spaces of N turns of the
 * bench's corpus (`search-corpus.ts`, fixed seed) in blocks of B, on in-memory PGlite (or
 * DATABASE_URL); then a consolidator with the offline provider (in this thread) starts, and the
 * time until every space has settled (summary, extraction and graph jobs, projected) is printed
 * in seconds. Ingest runs first and alone, so the figure is the consolidation pipeline's: the
 * model's work plus the projection of what it records.
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createConsolidator } from '@stratagate/consolidator';
import { createOfflineProvider } from '@stratagate/model';
import { startTestNode } from '../test/harness.ts';
import { generateTurn, prng, speakerFor } from './search-corpus.ts';

const { values } = parseArgs({
  options: {
    turns: { type: 'string', default: '240' },
    spaces: { type: 'string', default: '1' },
    'block-size': { type: 'string', default: '6' },
  },
});
const turns = Number(values.turns);
const spaces = Array.from({ length: Number(values.spaces) }, (_, s) => `s${s}`);
// No consolidator role: it starts once the import is projected.
const t = await startTestNode('consolidation', { roles: 'ingest,projector,query' });
try {
  const rng = prng(37);
  for (const space of spaces) {
    const settings = { blockSize: Number(values['block-size']) };
    await t.client.call('configureSpace', { spaceId: space, body: settings });
    const speaker = speakerFor(rng);
    for (let i = 0; i < turns; i += 1) {
      await t.client.call('recordTurn', {
        spaceId: space,
        body: {
          turnId: `t${i}`,
          threadId: 'import',
          occurredAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
          messages: generateTurn(rng, speaker),
        },
      });
    }
    await t.client.call('closeThread', { spaceId: space, threadId: 'import' });
  }
  await t.node.projector!.catchUp();
  const consolidator = createConsolidator({
    db: t.node.database.db,
    log: t.node.log,
    schema: () => t.node.readModel.get(),
    model: createOfflineProvider(),
  });
  const t0 = performance.now();
  consolidator.start();
  for (const space of spaces) await t.settle(space, undefined, 1_800_000);
  const seconds = (performance.now() - t0) / 1000;
  await consolidator.stop();
  let blocks = 0;
  for (const space of spaces) {
    blocks += (await t.client.call('getSpaceStatus', { spaceId: space })).blocks.total;
  }
  console.log(
    JSON.stringify({
      spaces: spaces.length,
      turns,
      blocks,
      seconds: Math.round(seconds * 10) / 10,
      blocksPerSecond: Math.round((blocks / seconds) * 10) / 10,
    }),
  );
} finally {
  await t.stop();
}
