import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rrfFuse } from './rrf.ts';

describe('rrfFuse (MM-RET-2)', () => {
  it('adds weight/(60 + rank + 1) per list', () => {
    const fused = rrfFuse([{ ids: ['a', 'b'] }, { ids: ['b', 'c'], weight: 2 }]);
    expect(fused).toEqual([
      { id: 'b', score: 1 / 62 + 2 / 61, bestRank: 0 },
      { id: 'c', score: 2 / 62, bestRank: 1 },
      { id: 'a', score: 1 / 61, bestRank: 0 },
    ]);
  });

  it('skips lists with weight ≤ 0', () => {
    const fused = rrfFuse([
      { ids: ['a'] },
      { ids: ['hidden', 'a'], weight: 0 },
      { ids: ['x'], weight: -1 },
    ]);
    expect(fused).toEqual([{ id: 'a', score: 1 / 61, bestRank: 0 }]);
  });

  it('breaks equal scores by best rank, then id', () => {
    // k = 0 keeps the sums exact: x, a and b score 1 at rank 0; y scores 2/2 = 1 at rank 1.
    const fused = rrfFuse(
      [{ ids: ['x'] }, { ids: ['p', 'y'], weight: 2 }, { ids: ['b'] }, { ids: ['a'] }],
      0,
    );
    expect(fused.map((f) => [f.id, f.score, f.bestRank])).toEqual([
      ['p', 2, 0],
      ['a', 1, 0],
      ['b', 1, 0],
      ['x', 1, 0],
      ['y', 1, 1],
    ]);
  });

  it('uses a custom k and counts a repeated id once per list', () => {
    expect(rrfFuse([{ ids: ['a', 'a', 'b'] }], 0)).toEqual([
      { id: 'a', score: 1, bestRank: 0 },
      { id: 'b', score: 1 / 3, bestRank: 2 },
    ]);
  });

  it('returns a permutation of the union of ids with non-increasing scores', () => {
    const ids = fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), { maxLength: 8 });
    const list = fc.record({
      ids,
      weight: fc.option(fc.double({ min: 0.01, max: 5, noNaN: true }), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(list, { maxLength: 5 }), (lists) => {
        const fused = rrfFuse(lists);
        const union = new Set(lists.flatMap((l) => l.ids));
        expect(fused.map((f) => f.id).sort()).toEqual([...union].sort());
        for (let i = 1; i < fused.length; i++) {
          expect(fused[i]!.score).toBeLessThanOrEqual(fused[i - 1]!.score);
        }
      }),
    );
  });
});
