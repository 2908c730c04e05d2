import { describe, expect, it } from 'vitest';
import { BACKOFF_MAX_MS, backoffDelayMs, retryAfterMs } from './backoff.ts';

describe('backoffDelayMs', () => {
  it('doubles from one second and caps', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7].map((n) => backoffDelayMs(n, () => 0));
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  });

  it('jitters downwards by at most a quarter', () => {
    expect(backoffDelayMs(2, () => 0.999999)).toBe(1500);
    expect(backoffDelayMs(2, () => 0.5)).toBe(1750);
    expect(backoffDelayMs(40, () => 0.5)).toBeLessThanOrEqual(BACKOFF_MAX_MS);
  });
});

describe('retryAfterMs', () => {
  it('reads seconds, bounded, and ignores what it cannot read', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs(' 0.5 ')).toBe(500);
    expect(retryAfterMs('3600')).toBe(60_000);
    expect(retryAfterMs(null)).toBeNull();
    expect(retryAfterMs('Wed, 21 Oct 2015 07:28:00 GMT')).toBeNull();
    expect(retryAfterMs('-1')).toBeNull();
  });
});
