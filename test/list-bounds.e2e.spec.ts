import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIST_BYTES } from '@stratagate/http';
import { describeBackend } from '@stratagate/store/testing';
import { startTestNode, turn, type TestNode } from './harness.ts';

describe(`lists bounded in bytes as well as items (${describeBackend()})`, () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode('list_bounds');
    expect((await t.request('POST', '/v1/spaces/lb/turns', turn(1))).status).toBe(202);
    await t.settle('lb');
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('stops a page of evidence batches at the byte bound and continues it with nextOffset', async () => {
    // Searches with the longest query there is, in a script of three UTF-8 bytes a character:
    // each batch lists its query, so 190 of them are more than the bound.
    const count = 190;
    for (let i = 0; i < count; i++) {
      const query = `${i} ${'記憶'.repeat(998)}`;
      const res = await t.request('POST', '/v1/spaces/lb/threads/agent/search/raw', { query });
      expect(res.status).toBe(200);
    }
    const first = await t.request(
      'GET',
      '/v1/spaces/lb/threads/agent/batches?status=all&limit=200',
    );
    expect(first.status).toBe(200);
    const kept = first.body.batches.length;
    expect(first.body.truncated).toBe(true);
    expect(kept).toBeLessThan(count);
    expect(first.body.nextOffset).toBe(kept);
    expect(Buffer.byteLength(JSON.stringify(first.body.batches))).toBeLessThanOrEqual(LIST_BYTES);

    const rest = await t.request(
      'GET',
      `/v1/spaces/lb/threads/agent/batches?status=all&limit=200&offset=${kept}`,
    );
    expect(rest.body.truncated).toBe(false);
    expect(rest.body.nextOffset).toBeNull();
    const ids = [...first.body.batches, ...rest.body.batches].map(
      (b: { batchId: string }) => b.batchId,
    );
    expect(new Set(ids).size).toBe(count);
  });

  it('says a page that fits is not truncated', async () => {
    const res = await t.request('GET', '/v1/spaces/lb/memory-events?limit=200');
    expect([res.status, res.body.truncated]).toEqual([200, false]);
    const nodes = await t.request('GET', '/v1/spaces/lb/graph/nodes?limit=100');
    expect([nodes.status, nodes.body.truncated, nodes.body.nextOffset]).toEqual([200, false, null]);
  });
});
