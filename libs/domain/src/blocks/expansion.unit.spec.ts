import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideBlockExpansion, resolveExpandTarget } from './expansion.ts';

describe('resolveExpandTarget (MM-BLK-20)', () => {
  describe('acceptance: expanding from L2', () => {
    it.each([
      ['raw', 5],
      ['5', 5],
      ['next', 3],
      [undefined, 3],
      ['L0', 0],
      [7, 5],
      [2.6, 3],
      ['banana', 3],
    ])('%j -> %i', (target, want) => {
      expect(resolveExpandTarget(target, 2)).toBe(want);
    });
  });

  it.each([
    ['L5', 5],
    [5, 5],
    ['+1', 3],
    [null, 3],
    ['L3', 3],
    ['l4', 4],
    ['0', 0],
    [' L1 ', 1],
    [0, 0],
    [-3, 0],
    [1.4, 1],
    ['L6', 3],
    ['7', 3],
    [{}, 3],
    [true, 3],
    [Number.NaN, 3],
    [Number.POSITIVE_INFINITY, 3],
  ])('from L2, %j -> %i', (target, want) => {
    expect(resolveExpandTarget(target, 2)).toBe(want);
  });

  it('clamps current + 1 at L5', () => {
    expect(resolveExpandTarget('next', 5)).toBe(5);
    expect(resolveExpandTarget(undefined, 5)).toBe(5);
  });

  it('never reaches L5 from below L4 without an explicit target', () => {
    const implicit = fc.oneof(
      fc.constant(undefined),
      fc.constant('next'),
      fc.string().filter((s) => !/^\s*(raw|l?5)\s*$/i.test(s)),
    );
    fc.assert(
      fc.property(implicit, fc.integer({ min: 0, max: 3 }), (target, current) => {
        const level = resolveExpandTarget(target, current);
        expect(level).toBeLessThan(5);
      }),
    );
  });

  it('always lands on an integer level 0..5', () => {
    fc.assert(
      fc.property(fc.anything(), fc.integer({ min: 0, max: 5 }), (target, current) => {
        const level = resolveExpandTarget(target, current);
        expect([0, 1, 2, 3, 4, 5]).toContain(level);
      }),
    );
  });

  it('rejects a non-finite current level', () => {
    expect(() => resolveExpandTarget('next', Number.NaN)).toThrow(/current level/);
  });
});

describe('decideBlockExpansion (MM-BLK-20)', () => {
  const block = { id: 'blk_1', threadId: 'session-1', currentLevel: 2 as const };

  it('given a block at L2, when the agent asks for raw, then the record lifts it from 2 to 5', () => {
    expect(decideBlockExpansion(block, { target: 'raw', source: 'agent' })).toEqual([
      {
        type: 'BlockExpanded',
        data: {
          blockId: 'blk_1',
          threadId: 'session-1',
          target: 'raw',
          fromLevel: 2,
          toLevel: 5,
          source: 'agent',
        },
      },
    ]);
  });

  it('given a block at L2, when no target is given, then it lifts one level and keeps the null target', () => {
    const [record] = decideBlockExpansion(block, { target: null, source: 'user' });
    expect(record.data).toMatchObject({ target: null, fromLevel: 2, toLevel: 3, source: 'user' });
  });
});
