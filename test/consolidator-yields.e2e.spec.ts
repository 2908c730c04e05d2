import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsolidator } from '@stratagate/consolidator';
import { createOfflineProvider } from '@stratagate/model';
import { describeBackend } from '@stratagate/store';
import { startTestNode, turn, type TestNode } from './harness.ts';

/**
 * The consolidator's loop skips its passes while the projector is behind by more than
 * `yieldAboveRecords` (projection first on a shared machine), and runs its due jobs once it is not.
 */
describe(`consolidator yields to a projection backlog (${describeBackend()})`, () => {
  let t: TestNode;

  beforeAll(async () => {
    // No consolidator role: the one under test is started by hand.
    t = await startTestNode('yields', { roles: 'ingest,projector,query' });
    expect((await t.request('PUT', '/v1/spaces/yield/settings', { blockSize: 2 })).status).toBe(
      200,
    );
    for (let i = 1; i <= 4; i++) {
      expect((await t.request('POST', '/v1/spaces/yield/turns', turn(i))).status).toBe(202);
    }
    // Projected: two sealed blocks whose summary jobs are due.
    for (;;) {
      const s = await t.request('GET', '/v1/spaces/yield/status');
      if (s.body.projectedPosition >= s.body.logPosition && s.body.summaryJobs.pending === 2) break;
      await new Promise((r) => setTimeout(r, 20));
    }
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('runs no job while the backlog is above the threshold, and all of them after', async () => {
    let backlog = 5_000;
    let asked = 0;
    const consolidator = createConsolidator({
      db: t.node.database.db,
      log: t.node.log,
      schema: () => t.node.readModel.get(),
      model: createOfflineProvider(),
      idleMs: 10,
      yieldAboveRecords: 1_000,
      projectionBacklog: async () => {
        asked += 1;
        return backlog;
      },
    });
    consolidator.start();
    try {
      // Several passes were skipped: nothing was appended for the due jobs.
      while (asked < 5) await new Promise((r) => setTimeout(r, 10));
      const skipped = await t.request('GET', '/v1/spaces/yield/status');
      expect(skipped.body.summaryJobs.pending).toBe(2);
      expect(skipped.body.logPosition).toBe(skipped.body.projectedPosition);

      backlog = 1_000; // at the threshold: not above it
      await t.settle('yield');
      const done = await t.request('GET', '/v1/spaces/yield/status');
      expect(done.body.summaryJobs).toMatchObject({ pending: 0, failed: 0 });
      expect(done.body.blocks.ready).toBe(2);
    } finally {
      await consolidator.stop();
    }
  });
});
