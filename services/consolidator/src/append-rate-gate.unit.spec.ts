import { describe, expect, it } from 'vitest';
import { AppendRateGate } from './append-rate-gate.ts';

/** Samples a gate every 200 ms with the given records appended by others and by itself. */
function sampler(gate: AppendRateGate) {
  let at = 0;
  let head = 0;
  let own = 0;
  return (others: number, mine = 0) => {
    at += 200;
    head += others + mine;
    own += mine;
    return gate.shouldWait({ at, head, own });
  };
}

describe('AppendRateGate', () => {
  it('waits while others append faster than the threshold, and not before it has a rate', () => {
    const step = sampler(new AppendRateGate({ aboveRecordsPerSecond: 500, maxWaitMs: 10_000 }));
    expect(step(1_000)).toBe(false); // first sample: no rate yet
    expect(step(400)).toBe(true); // 2,000 records/s
    expect(step(400)).toBe(true);
    expect(step(100)).toBe(false); // 500/s is not above 500/s
    expect(step(0)).toBe(false);
  });

  it("does not count the consolidator's own appends", () => {
    const step = sampler(new AppendRateGate({ aboveRecordsPerSecond: 500, maxWaitMs: 10_000 }));
    step(0);
    expect(step(0, 400)).toBe(false); // 2,000/s, all its own
    expect(step(50, 400)).toBe(false); // others 250/s
    expect(step(150, 400)).toBe(true); // others 750/s
  });

  it('waits at most maxWaitMs in one busy period, then runs until the rate falls once', () => {
    const step = sampler(new AppendRateGate({ aboveRecordsPerSecond: 500, maxWaitMs: 1_000 }));
    step(400);
    const busy = Array.from({ length: 10 }, () => step(400));
    // The period starts at the first busy sample: 5 samples of 200 ms wait, then passes run.
    expect(busy).toEqual([true, true, true, true, true, false, false, false, false, false]);
    expect(step(0)).toBe(false); // quiet: the period ends
    expect(step(400)).toBe(true); // a new busy period waits again
  });

  it('never waits with a threshold of 0', () => {
    const step = sampler(new AppendRateGate({ aboveRecordsPerSecond: 0, maxWaitMs: 10_000 }));
    step(0);
    expect([step(10_000), step(10_000)]).toEqual([false, false]);
  });
});
