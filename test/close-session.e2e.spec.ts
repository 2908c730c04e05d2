import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeBackend } from '@stratagate/store/testing';
import { startTestNode, turn, type TestNode } from './harness.ts';

const S = '/v1/spaces/closing';

describe(`closing a session seals its open tail (${describeBackend()})`, () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode('close_session');
    for (let i = 1; i <= 3; i++) await t.request('POST', `${S}/turns`, turn(i, 's1'));
    await t.request('POST', `${S}/turns`, turn(1, 's2'));
    await t.settle('closing');
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('before closing, the tail is outside raw search', async () => {
    const raw = await t.request('POST', `${S}/threads/s1/search/raw`, { query: 'pottery' });
    expect(raw.body.hits).toEqual([]);
  });

  it('close seals the tail as one shorter block that gets summarised and searched', async () => {
    const closed = await t.request('POST', `${S}/threads/s1/close`);
    expect(closed.status).toBe(202);
    expect(closed.body).toMatchObject({ sealed: true, turnRange: [1, 3] });
    await t.settle('closing');
    const ctx = await t.request('GET', `${S}/threads/s1/context`);
    expect(ctx.body.openTail.turns).toBe(0);
    expect(ctx.body.blocks).toHaveLength(1);
    expect(ctx.body.blocks[0]).toMatchObject({ id: closed.body.blockId, turnRange: [1, 3] });
    const block = await t.request('GET', `${S}/blocks/${closed.body.blockId}?level=L1`);
    expect(block.status).toBe(200);
    expect(block.body.content.length).toBeGreaterThan(0);
    const raw = await t.request('POST', `${S}/threads/s1/search/raw`, {
      query: 'pottery workshop',
      scope: 'session',
    });
    expect(raw.body.hits.length).toBe(6);
    // The other session's tail is untouched.
    const other = await t.request('GET', `${S}/threads/s2/context`);
    expect(other.body.openTail.turns).toBe(1);
  });

  it('closing again appends nothing; later turns start a new tail', async () => {
    const again = await t.request('POST', `${S}/threads/s1/close`);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ sealed: false, blockId: null });
    const next = await t.request('POST', `${S}/turns`, turn(4, 's1'));
    expect(next.body.threadTurn).toBe(4);
    await t.settle('closing');
    const ctx = await t.request('GET', `${S}/threads/s1/context`);
    expect(ctx.body.openTail.turns).toBe(1);
  });
});
