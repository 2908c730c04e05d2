import { afterAll, describe, expect, it } from 'vitest';
import type { ThreadedModelPort } from '@stratagate/model';
import { describeBackend } from '@stratagate/store/testing';
import { startTestNode, type TestNode } from './harness.ts';

// A node that runs the consolidator beside another role starts the offline model's thread when
// it starts (ADR 0022), so that loading the thread's code does not fall on the first blocks to
// consolidate: in bench runs that was over a second of CPU during the first measured loop.
describe(`the offline model's thread at start (${describeBackend()})`, () => {
  const nodes: TestNode[] = [];
  afterAll(async () => {
    for (const t of nodes) await t.stop();
  });

  it('is started, and becomes ready, before any block reaches the consolidator', async () => {
    const t = await startTestNode('offline_warm');
    nodes.push(t);
    const model = t.node.model as ThreadedModelPort;
    expect(model.threadId).toEqual(expect.any(Number));
    // Nothing was posted: the thread was started by the node, and it finishes loading.
    await model.warm();
    expect(model.threadId).toEqual(expect.any(Number));
  });

  it('is not started where the consolidator runs alone or not at all', async () => {
    for (const roles of ['ingest,query', 'consolidator']) {
      const t = await startTestNode(`offline_none_${roles.replace(',', '_')}`, { roles });
      nodes.push(t);
      expect('warm' in t.node.model, roles).toBe(false);
    }
  });
});
