import { describe, expect, it } from 'vitest';
import { containment, tokenize } from './tokenize.ts';

describe('tokenize (MM-RET-1)', () => {
  it('lower-cases and NFKC-normalises English words', () => {
    expect(tokenize('We switched to ＰＮＰＭ!')).toEqual([
      'word:we',
      'word:switched',
      'word:to',
      'word:pnpm',
    ]);
  });
  it('makes overlapping Han bigrams, and han1 for a lone character', () => {
    expect(tokenize('李明')).toEqual(['han2:李明']);
    expect(tokenize('我们改用 pnpm')).toEqual(['word:pnpm', 'han2:我们', 'han2:们改', 'han2:改用']);
    expect(tokenize('好')).toEqual(['han1:好']);
  });
});

describe('containment (MM-REM-3)', () => {
  it.each([
    [['a'], ['a', 'b'], 0],
    [['a', 'b', 'c'], ['a', 'b', 'x'], 2 / 3],
    [['a', 'b'], ['a', 'b', 'c', 'd'], 1],
  ])('%j vs %j → %d', (a, b, expected) => {
    expect(containment(a, b)).toBeCloseTo(expected, 6);
  });
});
