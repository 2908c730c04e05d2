import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { activate, type ActivationLimits, type Ranked } from './activation.ts';

/** The selection with every card at hand: what `activate` must give, however it reads. */
function eager(
  fused: readonly Ranked[],
  costs: ReadonlyMap<string, number>,
  limits: ActivationLimits,
) {
  const taken: string[] = [];
  let omitted = 0;
  let used = 0;
  for (const r of fused) {
    const cost = costs.get(r.id);
    if (taken.length >= limits.maxItems || cost === undefined || used + cost > limits.budget) {
      omitted++;
      continue;
    }
    used += cost;
    taken.push(r.id);
  }
  return { taken, omitted, used };
}

describe('activation within limits (recall, MM-RET-7)', () => {
  it('takes the best candidates that fit, reading cards lazily in fused order', async () => {
    const fused = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((id, i) => ({ id, score: 1 / (i + 1) }));
    const costs = new Map([
      ['a', 300],
      ['b', 700], // over the budget once a is in
      ['c', 100],
      ['d', 100],
      ['e', 100],
      ['f', 100],
      ['g', 100],
    ]);
    const reads: string[][] = [];
    const result = await activate(
      fused,
      async (ids) => {
        reads.push(ids);
        return new Map(ids.map((id) => [id, { id, cost: costs.get(id)! }]));
      },
      (card) => card.cost,
      { maxItems: 4, budget: 900, batch: 3 },
    );
    expect(result.taken.map((t) => t.card.id)).toEqual(['a', 'c', 'd', 'e']);
    expect(result.used).toBe(600);
    expect(result.omitted).toBe(3); // b over the budget; f and g past the limit
    // f and g were never read: the limit was reached first.
    expect(reads).toEqual([
      ['a', 'b', 'c'],
      ['d', 'e', 'f'],
    ]);
  });

  it('equals the eager selection for any candidates, costs, missing cards and batch size', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 3 }), { maxLength: 40 }),
        fc.array(fc.option(fc.integer({ min: 0, max: 400 }), { nil: undefined }), {
          minLength: 40,
          maxLength: 40,
        }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 0, max: 1200 }),
        fc.integer({ min: 1, max: 10 }),
        async (ids, costList, maxItems, budget, batch) => {
          const fused = ids.map((id, i) => ({ id, score: 1 / (i + 1) }));
          const costs = new Map<string, number>();
          ids.forEach((id, i) => {
            if (costList[i] !== undefined) costs.set(id, costList[i]);
          });
          const limits = { maxItems, budget, batch };
          const asked = new Set<string>();
          const lazy = await activate(
            fused,
            async (next) => {
              expect(next.length).toBeLessThanOrEqual(batch);
              for (const id of next) {
                // No card is asked for twice, missing ones included.
                expect(asked.has(id)).toBe(false);
                asked.add(id);
              }
              return new Map(
                next.flatMap((id) => (costs.has(id) ? [[id, costs.get(id)!] as const] : [])),
              );
            },
            (cost) => cost,
            limits,
          );
          const expected = eager(fused, costs, limits);
          expect(lazy.taken.map((t) => t.ranked.id)).toEqual(expected.taken);
          expect(lazy.omitted).toBe(expected.omitted);
          expect(lazy.used).toBe(expected.used);
        },
      ),
    );
  });
});
