import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rrfFuse } from './rrf.ts';
import { fuseScores } from './score-fusion.ts';

const hits = (...pairs: [string | string[], number][]) =>
  pairs.map(([units, score]) => ({ units: typeof units === 'string' ? [units] : units, score }));

describe('fuseScores', () => {
  it('sums each list’s scores divided by its best score, times its weight', () => {
    const fused = fuseScores([
      { hits: hits(['a', 8], ['b', 4]) },
      { hits: hits(['b', 3], ['c', 1]), weight: 2 },
    ]);
    expect(fused).toEqual([
      { id: 'b', score: 4 / 8 + 2, bestRank: 0 },
      { id: 'a', score: 1, bestRank: 0 },
      { id: 'c', score: 2 / 3, bestRank: 1 },
    ]);
  });

  it('lets a strong hit of a second list outrank a weak hit of the first (RRF at half weight could not)', () => {
    // Raw search: 20 hits, the last scoring a tenth of the first. Event search: one strong hit
    // citing a turn raw search did not find.
    const raw = {
      hits: Array.from({ length: 20 }, (_, i) => ({ units: [`r${i}`], score: 10 - i * 0.45 })),
    };
    const events = { hits: hits(['e', 12]), weight: 0.5 };
    const byScore = fuseScores([raw, events]).map((f) => f.id);
    expect(byScore.indexOf('e')).toBeLessThan(byScore.indexOf('r19'));
    // Half of the best raw score: above every raw hit scoring less than half of the best.
    expect(byScore.indexOf('e')).toBe(12);
    const byRank = rrfFuse([
      { ids: raw.hits.map((h) => h.units[0]!) },
      { ids: ['e'], weight: 0.5 },
    ]).map((f) => f.id);
    expect(byRank.at(-1)).toBe('e');
  });

  it('shares a hit’s score among the units it stands for, and a list votes for a unit once', () => {
    const fused = fuseScores([
      { hits: hits([['t1', 't2'], 6], ['t2', 6], ['t3', 3], [['t4', 't4', 't5'], 3]) },
    ]);
    // t2 gets the larger of its shares (its own hit), not both.
    expect(fused.map((f) => [f.id, f.score, f.bestRank])).toEqual([
      ['t2', 1, 1],
      ['t1', 0.5, 0],
      ['t3', 0.5, 2],
      ['t4', 0.25, 3],
      ['t5', 0.25, 3],
    ]);
  });

  it('gives neighbours a share of a unit’s contribution, ranked after the lists’ own hits on ties', () => {
    const next: Record<string, string[]> = { a: ['b'], b: ['a', 'c'], c: ['b'] };
    const fused = fuseScores([{ hits: hits(['a', 10], ['c', 1]) }], {
      neighbours: (u) => next[u] ?? [],
      neighbourShare: 0.1,
    });
    expect(fused.map((f) => [f.id, Number(f.score.toFixed(6))])).toEqual([
      ['a', 1],
      ['b', 0.11],
      ['c', 0.1],
    ]);
    expect(fused.find((f) => f.id === 'b')?.bestRank).toBe(Number.MAX_SAFE_INTEGER);
    expect(fuseScores([{ hits: hits(['a', 10]) }]).map((f) => f.id)).toEqual(['a']);
  });

  it('skips lists with weight ≤ 0 or no positive score, and looks only `depth` deep', () => {
    expect(
      fuseScores([
        { hits: hits(['a', 1]) },
        { hits: hits(['x', 5]), weight: 0 },
        { hits: hits(['y', 0]) },
      ]).map((f) => f.id),
    ).toEqual(['a']);
    expect(fuseScores([{ hits: hits(['a', 2], ['b', 1]) }], { depth: 1 }).map((f) => f.id)).toEqual(
      ['a'],
    );
  });

  it('orders one list as it came, whatever its scale', () => {
    const list = fc.uniqueArray(fc.string({ minLength: 1, maxLength: 3 }), { maxLength: 15 });
    fc.assert(
      fc.property(list, fc.double({ min: 0.001, max: 1000, noNaN: true }), (ids, scale) => {
        const scored = ids.map((id, i) => ({ units: [id], score: scale * (ids.length - i) }));
        expect(fuseScores([{ hits: scored }]).map((f) => f.id)).toEqual(ids);
      }),
    );
  });
});
