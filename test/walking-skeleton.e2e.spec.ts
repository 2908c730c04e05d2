import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coreProjection, createProjector } from '@stratagate/projector';
import { dumpReadModel } from '@stratagate/store';
import { describeBackend } from '@stratagate/store/testing';
import { startTestNode, turn, type TestNode } from './harness.ts';

const SPACE = 'project:skeleton';

describe(`walking skeleton end to end (${describeBackend()})`, () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode('skeleton');
  });
  afterAll(async () => {
    await t?.stop();
  });

  const context = async () => {
    const res = await t.request('GET', `/v1/spaces/${SPACE}/threads/t1/context`);
    expect(res.status).toBe(200);
    return res.body;
  };
  const ageLevels = (body: { blocks: { age: number; level: number }[] }) =>
    body.blocks.map((b) => [b.age, b.level]);

  it('30 turns with block size 6 become 5 ready blocks whose levels follow MM-BLK-19', async () => {
    const settings = await t.request('PUT', `/v1/spaces/${SPACE}/settings`, { blockSize: 6 });
    expect(settings.status).toBe(200);
    expect(settings.body.blockSize).toBe(6);
    for (let i = 1; i <= 30; i++) {
      const res = await t.request('POST', `/v1/spaces/${SPACE}/turns`, turn(i));
      expect(res.status).toBe(202);
      expect(res.body.threadTurn).toBe(i);
      expect(res.body.sealedBlockId !== null).toBe(i % 6 === 0);
    }
    await t.settle(SPACE);
    const body = await context();
    expect(body.blocks.map((b: { turnRange: number[] }) => b.turnRange)).toEqual([
      [1, 6],
      [7, 12],
      [13, 18],
      [19, 24],
      [25, 30],
    ]);
    // Ready blocks added after each: 4, 3, 2, 1, 0 → L3, L3, L4, L5, L5.
    expect(ageLevels(body)).toEqual([
      [4, 3],
      [3, 3],
      [2, 4],
      [1, 5],
      [0, 5],
    ]);
    expect(body.blocks.map((b: { label: string }) => b.label)).toEqual([
      'L3',
      'L3',
      'L4',
      'L5',
      'L5',
    ]);
    // Each block's weight is what fading keeps of it: e^(−λ·age) at λ = 0.3.
    for (const b of body.blocks as { age: number; weight: number }[]) {
      expect(b.weight).toBeCloseTo(Math.exp(-0.3 * b.age), 12);
    }
    expect(body.openTail.turns).toBe(0);
    expect(body.pendingBlocks).toEqual([]);
    // L5 is the raw transcript; the L3 view of the oldest block is the condensed one.
    expect(body.blocks[4].content).toContain('user: Turn 25');
    expect(body.blocks[0].tokens).toBeLessThanOrEqual(body.blocks[4].tokens);
  });

  it('expanding the oldest block to L5 resets its decay, and later blocks make it fade again', async () => {
    const before = await context();
    const oldest = before.blocks[0];
    const expanded = await t.request('POST', `/v1/spaces/${SPACE}/blocks/${oldest.id}/expand`, {
      target: 'raw',
    });
    expect(expanded.status).toBe(200);
    expect(expanded.body.fromLevel).toBe(3);
    expect(expanded.body.level).toBe(5);
    await t.settle(SPACE);
    const after = await context();
    expect(ageLevels(after)[0]).toEqual([0, 5]);
    expect(after.blocks[0].lastLiftedBy).toBe('agent');

    for (let i = 31; i <= 48; i++) {
      expect((await t.request('POST', `/v1/spaces/${SPACE}/turns`, turn(i))).status).toBe(202);
    }
    await t.settle(SPACE);
    const faded = await context();
    expect(faded.blocks).toHaveLength(8);
    // Anchored at position 5, newest is now 8: age 3 → L3; the never-lifted second block: age 6 → L2.
    expect(ageLevels(faded)[0]).toEqual([3, 3]);
    expect(ageLevels(faded)[1]).toEqual([6, 2]);
    expect(faded.blocks[1].content.startsWith('- ')).toBe(true);
  });

  it('expansion targets follow MM-BLK-20 (next = +1) and a pending or unknown block is refused', async () => {
    const body = await context();
    const second = body.blocks[1];
    const next = await t.request('POST', `/v1/spaces/${SPACE}/blocks/${second.id}/expand`, {});
    expect(next.body.level).toBe(second.level + 1);
    const missing = await t.request('POST', `/v1/spaces/${SPACE}/blocks/blk_nope/expand`, {});
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('block_not_found');
    await t.settle(SPACE);
  });

  it('serves a block at any level, with L0 as title plus tags', async () => {
    const body = await context();
    const id = body.blocks[2].id;
    const l0 = await t.request('GET', `/v1/spaces/${SPACE}/blocks/${id}?level=L0`);
    expect(l0.status).toBe(200);
    expect(l0.body.label).toBe('L0');
    expect(l0.body.content).toMatch(/\nTags: .+/);
    const l5 = await t.request('GET', `/v1/spaces/${SPACE}/blocks/${id}?level=5`);
    expect(l5.body.content).toContain('assistant: Noted the workshop number 13');
  });

  it('a rebuild from position 0 yields read models identical to the live ones', async () => {
    await t.settle(SPACE);
    await t.node.consolidator!.stop();
    await t.node.projector!.stop();
    await t.node.projector!.catchUp();
    const db = t.node.database.db;
    const rebuilt = createProjector({
      db,
      log: t.node.log,
      schema: 'rm_rebuild',
      projection: coreProjection,
    });
    await rebuilt.catchUp();
    const live = await dumpReadModel(db, t.node.config.STRATAGATE_READ_MODEL_SCHEMA);
    const fresh = await dumpReadModel(db, 'rm_rebuild');
    expect(live.blocks).toHaveLength(8);
    expect(fresh).toEqual(live);
  });
});
