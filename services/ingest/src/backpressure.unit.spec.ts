import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ProjectionBackpressure } from './backpressure.ts';

describe('ProjectionBackpressure (ADR 0031)', () => {
  let clock = 0;
  const gate = (maxLagMs = 1_000, maxWaitMs = 5_000) =>
    new ProjectionBackpressure({ maxLagMs, maxWaitMs, now: () => clock });
  beforeEach(() => {
    clock = 0;
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  /** Moves the gate's clock and the timers together. */
  const advance = async (ms: number) => {
    clock += ms;
    await vi.advanceTimersByTimeAsync(ms);
  };
  const settled = async <T>(p: Promise<T>) => {
    let done = false;
    void p.then(() => (done = true));
    await vi.advanceTimersByTimeAsync(0);
    return done;
  };

  it('measures the age of the oldest record not applied, from when its append was acknowledged', () => {
    const g = gate();
    expect(g.lagMs()).toBe(0);
    g.appended(3);
    clock = 400;
    g.appended(5);
    clock = 900;
    expect(g.lagMs()).toBe(900);
    expect(g.backlog()).toBe(5);
    // Applied through 4: position 5 is the oldest not applied, appended at 400.
    g.applied(4);
    expect(g.lagMs()).toBe(500);
    g.applied(5);
    expect(g.lagMs()).toBe(0);
    expect(g.backlog()).toBe(0);
  });

  it('ignores an append acknowledged after a later one (it is covered by the earlier time)', () => {
    const g = gate();
    g.appended(10);
    clock = 300;
    g.appended(8);
    g.applied(9);
    expect(g.lagMs()).toBe(300);
    expect(g.backlog()).toBe(1);
  });

  it('admits at once while the lag is within the bound', async () => {
    const g = gate(1_000);
    g.appended(1);
    clock = 1_000;
    expect(await g.admit()).toEqual({ waitedMs: 0, timedOut: false });
  });

  it('holds an append while the lag is over the bound until a report brings it back', async () => {
    const g = gate(1_000);
    g.appended(1);
    clock = 800;
    g.appended(2);
    await advance(700); // lag 1,500 ms
    const admission = g.admit();
    expect(await settled(admission)).toBe(false);
    await advance(100);
    // Position 1 applied: the oldest left (2) is 800 ms old, within the bound.
    g.applied(1);
    expect(await admission).toEqual({ waitedMs: 100, timedOut: false });
  });

  it('keeps waiting through a report that leaves the lag over the bound', async () => {
    const g = gate(1_000);
    g.appended(1);
    clock = 100;
    g.appended(2);
    clock = 2_000;
    const admission = g.admit();
    g.applied(1); // the oldest left was appended at 100: 1,900 ms
    expect(await settled(admission)).toBe(false);
    g.applied(2);
    expect((await admission).timedOut).toBe(false);
  });

  it('gives up waiting after maxWaitMs, so a stopped projector slows appends and never stops them', async () => {
    const g = gate(1_000, 5_000);
    g.appended(1);
    clock = 2_000;
    const admission = g.admit();
    await advance(4_999);
    expect(await settled(admission)).toBe(false);
    await advance(1);
    expect(await admission).toEqual({ waitedMs: 5_000, timedOut: true });
  });

  it('rejects bounds that would stop every append or none', () => {
    expect(() => gate(0)).toThrow(/maxLagMs/);
    expect(() => gate(1_000, -1)).toThrow(/maxWaitMs/);
  });
});
