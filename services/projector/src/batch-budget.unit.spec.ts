import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { BatchSizer } from './batch-budget.ts';

const budget = { budgetMs: 20 };

describe('BatchSizer (ADR 0019)', () => {
  it('without a budget always hands out the maximum', () => {
    const sizer = new BatchSizer({ budget: undefined, max: 500 });
    expect(sizer.next()).toBe(500);
    sizer.observe(500, 10_000);
    expect(sizer.next(10_000)).toBe(500);
  });

  it('starts at the initial size and settles where a batch takes about the budget', () => {
    const sizer = new BatchSizer({ budget, max: 500 });
    expect(sizer.next()).toBe(16);
    // 0.5 ms per record: 40 records fit in 20 ms.
    let size = 16;
    for (let i = 0; i < 30; i++) {
      sizer.observe(size, size * 0.5);
      size = sizer.next();
    }
    expect(size).toBe(40);
  });

  it('grows by at most half per batch and shrinks at once when batches get slower', () => {
    const sizer = new BatchSizer({ budget, max: 500 });
    sizer.observe(16, 0.16); // 0.01 ms a record: 2,000 would fit
    expect(sizer.next()).toBe(24);
    sizer.observe(24, 0.24);
    expect(sizer.next()).toBe(36);
    // A batch at 5 ms per record: the average moves to about 1.5 ms, 13 records fit.
    sizer.observe(36, 180);
    expect(sizer.next()).toBe(13);
  });

  it('counts a short batch (the end of the log) by its own items', () => {
    const sizer = new BatchSizer({ budget, max: 500 });
    sizer.observe(2, 10); // 5 ms per record
    expect(sizer.next()).toBe(4);
  });

  it('gives work that falls behind a budget that grows with the backlog', () => {
    const caughtUp = new BatchSizer({ budget, max: 500 });
    const behind = new BatchSizer({ budget, max: 500 });
    for (const sizer of [caughtUp, behind]) sizer.observe(10, 10); // 1 ms a record
    expect(caughtUp.next(0)).toBe(20);
    // 100 records behind (the default knee): twice the budget, but growth is bounded per batch.
    expect(behind.next(100)).toBe(24);
    expect(behind.next(100)).toBe(36);
    expect(behind.next(100)).toBe(40);
    expect(behind.next(300)).toBe(60);
    // Caught up again: back to the base budget at once.
    expect(behind.next(0)).toBe(20);
    const lane = new BatchSizer({ budget, max: 32, initial: 4, knee: 8 });
    lane.observe(4, 40); // 10 ms a block
    expect(lane.next(0)).toBe(2);
    expect(lane.next(24)).toBe(3); // 4 × the budget fits 8, growth allows 3
  });

  it('stays within min and max whatever it measures', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 1, max: 1000 }),
        fc.array(
          fc.tuple(
            fc.integer({ min: 0, max: 2000 }),
            fc.double({ min: 0, max: 1e5, noNaN: true }),
            fc.integer({ min: 0, max: 1e6 }),
          ),
        ),
        (max, minSeed, batches) => {
          const min = 1 + (minSeed % max);
          const sizer = new BatchSizer({ budget, max, min });
          for (const [items, ms, backlog] of batches) {
            sizer.observe(items, ms);
            const size = sizer.next(backlog);
            if (size < min || size > max || !Number.isInteger(size)) return false;
          }
          return true;
        },
      ),
    );
  });

  it('ignores batches that measured nothing', () => {
    const sizer = new BatchSizer({ budget, max: 500 });
    sizer.observe(0, 50);
    sizer.observe(10, Number.NaN);
    expect(sizer.next()).toBe(16);
  });

  it('rejects settings that cannot work', () => {
    expect(() => new BatchSizer({ budget: undefined, max: 0 })).toThrow(RangeError);
    expect(() => new BatchSizer({ budget: undefined, max: 10, min: 11 })).toThrow(RangeError);
    expect(() => new BatchSizer({ budget: { budgetMs: 0 }, max: 10 })).toThrow(RangeError);
    expect(() => new BatchSizer({ budget, max: 10, knee: 0 })).toThrow(RangeError);
  });
});
