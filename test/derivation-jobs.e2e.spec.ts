import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOfflineProvider, ModelError, type ModelPort } from '@stratagate/model';
import { describeBackend } from '@stratagate/store/testing';
import { startTestNode, turn, type TestNode } from './harness.ts';

/** A model that fails while `failing` is set, counting calls; otherwise the offline provider. */
function switchableModel() {
  const offline = createOfflineProvider();
  const state = { failing: true, calls: 0 };
  const model: ModelPort = {
    name: 'switchable',
    async summarizeBlock(input, options) {
      state.calls += 1;
      if (state.failing) throw new ModelError('upstream returned 500', 'http_500', true);
      return offline.summarizeBlock(input, options);
    },
  };
  return { model, state };
}

describe(`derivation jobs (MM-JOB) (${describeBackend()})`, () => {
  let t: TestNode;
  const m = switchableModel();
  beforeAll(async () => {
    t = await startTestNode('jobs', { model: m.model });
    await t.request('PUT', '/v1/spaces/jobs/settings', { blockSize: 6 });
  });
  afterAll(async () => {
    await t?.stop();
  });

  const status = async () => (await t.request('GET', '/v1/spaces/jobs/status')).body;

  it('a failing summariser never blocks ingest: 19 turns → 3 pending blocks, turn 19 in the tail', async () => {
    for (let i = 1; i <= 19; i++) {
      expect((await t.request('POST', '/v1/spaces/jobs/turns', turn(i))).status).toBe(202);
    }
    // Attempts back off 1 s then 2 s; after the 3rd the job is terminal.
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      // 404 until the space's first record is projected.
      const s = await status();
      if (s.summaryJobs?.failed === 3 && s.projectedPosition >= s.logPosition) {
        const blocks = await Promise.all(
          (
            (await t.request('GET', '/v1/spaces/jobs/threads/t1/context')).body.pendingBlocks as {
              id: string;
            }[]
          ).map(async (b) => (await t.request('GET', `/v1/spaces/jobs/blocks/${b.id}`)).body),
        );
        if (blocks.every((b) => b.summaryAttempts === 3)) break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const ctx = (await t.request('GET', '/v1/spaces/jobs/threads/t1/context')).body;
    expect(ctx.blocks).toEqual([]);
    expect(ctx.pendingBlocks).toHaveLength(3);
    expect(ctx.openTail.turns).toBe(1);
    expect(ctx.openTail.messages[0].threadTurn).toBe(19);
    const block = (await t.request('GET', `/v1/spaces/jobs/blocks/${ctx.pendingBlocks[0].id}`))
      .body;
    expect(block.summaryStatus).toBe('failed');
    expect(block.summaryAttempts).toBe(3);
    expect(block.summaryNextRetryAt).toBeNull();
    expect(block.summaryLastError).toContain('http_500');
    // Exactly three calls per block, then terminal: no fourth attempt.
    expect(m.state.calls).toBe(9);
    // L3–L5 are intact while the job fails.
    const l5 = await t.request('GET', `/v1/spaces/jobs/blocks/${ctx.pendingBlocks[0].id}?level=L5`);
    expect(l5.body.content).toContain('Turn 1:');
    const expand = await t.request(
      'POST',
      `/v1/spaces/jobs/blocks/${ctx.pendingBlocks[0].id}/expand`,
      {},
    );
    expect(expand.status).toBe(409);
    expect(expand.body.error.code).toBe('block_not_ready');
  });

  it('a manual retry after the model recovers makes the blocks ready', async () => {
    m.state.failing = false;
    const pending = (await t.request('GET', '/v1/spaces/jobs/threads/t1/context')).body
      .pendingBlocks;
    for (const b of pending as { id: string }[]) {
      const res = await t.request('POST', `/v1/spaces/jobs/blocks/${b.id}/retry`, {
        job: 'summary',
      });
      expect(res.status).toBe(202);
    }
    await t.settle('jobs');
    const ctx = (await t.request('GET', '/v1/spaces/jobs/threads/t1/context')).body;
    expect(ctx.blocks).toHaveLength(3);
    expect(ctx.pendingBlocks).toEqual([]);
    expect(m.state.calls).toBe(12);
  });
});
