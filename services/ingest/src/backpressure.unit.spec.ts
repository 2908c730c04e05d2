import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ProjectionBackpressure } from './backpressure.ts';

describe('ProjectionBackpressure (ADR 0031)', () => {
  /** The space of the tests about one space's lag. */
  const one = { tenantId: 't', spaceId: 'one' };
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
    g.appended(3, one);
    clock = 400;
    g.appended(5, one);
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
    g.appended(10, one);
    clock = 300;
    g.appended(8, one);
    g.applied(9);
    expect(g.lagMs()).toBe(300);
    expect(g.backlog()).toBe(1);
  });

  it('admits at once while the lag is within the bound', async () => {
    const g = gate(1_000);
    g.appended(1, one);
    clock = 1_000;
    expect(await g.admit(one)).toEqual({ waitedMs: 0, timedOut: false });
  });

  it('holds an append while the lag is over the bound until a report brings it back', async () => {
    const g = gate(1_000);
    g.appended(1, one);
    clock = 800;
    g.appended(2, one);
    await advance(700); // lag 1,500 ms
    const admission = g.admit(one);
    expect(await settled(admission)).toBe(false);
    await advance(100);
    // Position 1 applied: the oldest left (2) is 800 ms old, within the bound.
    g.applied(1);
    expect(await admission).toEqual({ waitedMs: 100, timedOut: false });
  });

  it('keeps waiting through a report that leaves the lag over the bound', async () => {
    const g = gate(1_000);
    g.appended(1, one);
    clock = 100;
    g.appended(2, one);
    clock = 2_000;
    const admission = g.admit(one);
    g.applied(1); // the oldest left was appended at 100: 1,900 ms
    expect(await settled(admission)).toBe(false);
    g.applied(2);
    expect((await admission).timedOut).toBe(false);
  });

  it('gives up waiting after maxWaitMs, so a stopped projector slows appends and never stops them', async () => {
    const g = gate(1_000, 5_000);
    g.appended(1, one);
    clock = 2_000;
    const admission = g.admit(one);
    await advance(4_999);
    expect(await settled(admission)).toBe(false);
    await advance(1);
    expect(await admission).toEqual({ waitedMs: 5_000, timedOut: true });
  });

  it('is per space (ADR 0043): a seal queued for raw search holds back its own space only', async () => {
    const g = gate(1_000);
    const noisy = { tenantId: 'n', spaceId: 'big' };
    const quiet = { tenantId: 'q', spaceId: 'small' };
    g.appended(10, noisy); // a huge turn and its seal
    clock = 100;
    g.appended(11, quiet);
    clock = 200;
    g.appended(12, quiet);
    // The checkpoint is past every record; the noisy space's seal (10) is still being indexed.
    g.applied({ checkpoint: 12, held: [{ ...noisy, oldestPosition: 10 }] });
    clock = 5_000;
    expect(g.lagMs(quiet)).toBe(0);
    expect(g.lagMs(noisy)).toBe(5_000);
    expect(g.lagMs()).toBe(5_000);
    expect(g.backlog()).toBe(3);
    expect(await g.admit(quiet)).toEqual({ waitedMs: 0, timedOut: false });
    const waiting = g.admit(noisy);
    expect(await settled(waiting)).toBe(false);
    // Indexed: nothing holds the noisy space back any more.
    g.applied({ checkpoint: 12, held: [] });
    expect((await waiting).timedOut).toBe(false);
    expect(g.lagMs()).toBe(0);
  });

  it('counts the checkpoint for every space: records past it hold back their spaces', () => {
    const g = gate(1_000);
    const a = { tenantId: 't', spaceId: 'a' };
    const b = { tenantId: 't', spaceId: 'b' };
    g.appended(1, a);
    clock = 300;
    g.appended(2, b);
    clock = 2_000;
    g.applied({ checkpoint: 1, held: [] });
    expect(g.lagMs(a)).toBe(0);
    expect(g.lagMs(b)).toBe(1_700);
    // A space held by a seal at or before the checkpoint is complete up to the seal.
    g.applied({ checkpoint: 2, held: [{ ...b, oldestPosition: 2 }] });
    expect(g.lagMs(b)).toBe(1_700);
  });

  it('rejects bounds that would stop every append or none', () => {
    expect(() => gate(0)).toThrow(/maxLagMs/);
    expect(() => gate(1_000, -1)).toThrow(/maxWaitMs/);
  });
});
