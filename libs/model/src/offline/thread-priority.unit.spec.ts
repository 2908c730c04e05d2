import { describe, expect, it } from 'vitest';
import { lowerOwnThreadPriority } from './thread-priority.ts';

describe('lowerOwnThreadPriority (ADR 0032)', () => {
  it('refuses a nice value outside 0..19, naming it', () => {
    for (const nice of [-1, 20, 2.5, Number.NaN]) {
      expect(() => lowerOwnThreadPriority(nice)).toThrow(/0\.\.19/);
    }
  });

  it('leaves the thread as it is for nice 0, and says so', () => {
    expect(lowerOwnThreadPriority(0)).toEqual({ unchanged: 'nice 0 asked' });
  });
});
