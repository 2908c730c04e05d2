import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsolidator } from '@stratagate/consolidator';
import { createOfflineProvider } from '@stratagate/model';
import { describeBackend } from '@stratagate/store/testing';
import { startTestNode, turn, type TestNode } from './harness.ts';

/**
 * The consolidator's loop skips its passes while the projector is behind by more than
 * `yieldAboveRecords` (projection first on a shared machine), and while others append faster
 * than `yieldAboveAppendRate`, for at most `maxAppendRateWaitMs` in one busy period (ADR 0026);
 * it runs its due jobs once neither holds.
 */
describe(`consolidator yields to a projection backlog and to a burst of appends (${describeBackend()})`, () => {
  let t: TestNode;

  /** Seals two blocks of `space` and waits until they are projected (their jobs are due). */
  async function twoDueBlocks(space: string) {
    expect((await t.request('PUT', `/v1/spaces/${space}/settings`, { blockSize: 2 })).status).toBe(
      200,
    );
    for (let i = 1; i <= 4; i++) {
      expect((await t.request('POST', `/v1/spaces/${space}/turns`, turn(i))).status).toBe(202);
    }
    for (;;) {
      const s = await t.request('GET', `/v1/spaces/${space}/status`);
      if (s.body.projectedPosition >= s.body.logPosition) return;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** A consolidator started by hand whose view of the log is `progress`. */
  function consolidatorWith(
    progress: () => { head: number; projected: number },
    options: { maxAppendRateWaitMs?: number } = {},
  ) {
    let asked = 0;
    const consolidator = createConsolidator({
      db: t.node.database.db,
      log: t.node.log,
      schema: () => t.node.readModel.get(),
      model: createOfflineProvider(),
      idleMs: 10,
      yieldAboveRecords: 1_000,
      yieldAboveAppendRate: 500,
      ...options,
      progress: async () => {
        asked += 1;
        return progress();
      },
    });
    return { consolidator, asked: () => asked };
  }

  async function expectPending(space: string, pending: number) {
    const s = await t.request('GET', `/v1/spaces/${space}/status`);
    expect(s.body.summaryJobs.pending).toBe(pending);
    // Nothing was appended for the due jobs.
    if (pending === 2) expect(s.body.logPosition).toBe(s.body.projectedPosition);
  }

  async function expectDone(space: string) {
    await t.settle(space);
    const done = await t.request('GET', `/v1/spaces/${space}/status`);
    expect(done.body.summaryJobs).toMatchObject({ pending: 0, failed: 0 });
    expect(done.body.blocks.ready).toBe(2);
  }

  beforeAll(async () => {
    // No consolidator role: the one under test is started by hand.
    t = await startTestNode('yields', { roles: 'ingest,projector,query' });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('runs no job while the backlog is above the threshold, and all of them after', async () => {
    await twoDueBlocks('backlog');
    await expectPending('backlog', 2);
    let backlog = 5_000;
    const { consolidator, asked } = consolidatorWith(() => ({ head: backlog, projected: 0 }));
    consolidator.start();
    try {
      while (asked() < 5) await new Promise((r) => setTimeout(r, 10));
      await expectPending('backlog', 2);
      backlog = 1_000; // at the threshold: not above it
      await expectDone('backlog');
    } finally {
      await consolidator.stop();
    }
  });

  it('runs no job while others append fast, and all of them once the appends stop', async () => {
    // Every pass sees 1,000 more records (about 100,000 a second), all projected.
    let head = 0;
    let burst = true;
    const { consolidator, asked } = consolidatorWith(() => {
      if (burst) head += 1_000;
      return { head, projected: head };
    });
    consolidator.start();
    try {
      // The first pass has no rate yet: the jobs become due only once the burst is measured.
      while (asked() < 2) await new Promise((r) => setTimeout(r, 10));
      await twoDueBlocks('burst');
      const seen = asked();
      while (asked() < seen + 5) await new Promise((r) => setTimeout(r, 10));
      await expectPending('burst', 2);
      burst = false;
      await expectDone('burst');
    } finally {
      await consolidator.stop();
    }
  });

  it('waits for a burst at most maxAppendRateWaitMs, then runs its jobs during it', async () => {
    let head = 0;
    const { consolidator, asked } = consolidatorWith(
      () => {
        head += 1_000;
        return { head, projected: head };
      },
      { maxAppendRateWaitMs: 300 },
    );
    consolidator.start();
    try {
      while (asked() < 2) await new Promise((r) => setTimeout(r, 10));
      await twoDueBlocks('sustained');
      // The burst never ends: the jobs run once the busy period has waited 300 ms.
      await expectDone('sustained');
    } finally {
      await consolidator.stop();
    }
  });
});
