import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codePointLength, estimateTokens, takeCodePoints, takeLastCodePoints } from './tokens.ts';

describe('codePointLength (MM-GEN-4)', () => {
  it('counts 😀中文 as 3 code points, not 4 UTF-16 units', () => {
    expect('😀中文'.length).toBe(4);
    expect(codePointLength('😀中文')).toBe(3);
  });

  it('counts the empty string as 0', () => {
    expect(codePointLength('')).toBe(0);
  });
});

describe('estimateTokens (MM-GEN-5)', () => {
  it.each([
    ['', 0],
    ['abcd', 1],
    ['abcde', 2],
    ['hello world', 3],
    ['中文', 2],
    ['😀中文', 3],
    ['ab中cd', 3],
    ['abc😀abcde', 4],
    ['abcdabcd中', 3],
  ])('estimates %j as %i tokens', (text, tokens) => {
    expect(estimateTokens(text)).toBe(tokens);
  });

  it('rounds each ASCII run up separately instead of pooling them', () => {
    // Pooled, "a中b" would be ceil(2/4) + 1 = 2; per run it is 1 + 1 + 1.
    expect(estimateTokens('a中b')).toBe(3);
  });
});

describe('code-point cuts', () => {
  it('never splits a surrogate pair', () => {
    expect(takeCodePoints('😀😀😀', 2)).toBe('😀😀');
    expect(takeLastCodePoints('a😀b😀', 2)).toBe('b😀');
    expect(takeCodePoints('abc', 0)).toBe('');
    expect(takeLastCodePoints('abc', 0)).toBe('');
  });

  it('takes what the string iterator gives, lone surrogates included', () => {
    expect(takeCodePoints('\ud83d\ud83d😀x', 3)).toBe('\ud83d\ud83d😀');
    expect(takeCodePoints('a\ude00b', 2)).toBe('a\ude00');
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.nat(40), (text, max) => {
        expect(takeCodePoints(text, max)).toBe(Array.from(text).slice(0, max).join(''));
      }),
    );
  });
});
