import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bm25Rank } from './bm25.ts';
import {
  containment,
  indexTokens,
  indexTokensAsync,
  MAX_STEMMED_LENGTH,
  normaliseText,
  stemTerm,
  tokenize,
  tokenizeAsync,
  withoutClitic,
  wordSegments,
} from './tokenize.ts';

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
  it('cuts possessives and contractions off a word, with straight or curly apostrophes', () => {
    expect(tokenize("John's dog")).toEqual(['word:john', 'word:dog']);
    expect(tokenize('Caroline’s art')).toEqual(['word:caroline', 'word:art']);
    expect(tokenize("I'm sure we've seen what they'll do; she'd know")).toEqual([
      'word:i',
      'word:sure',
      'word:we',
      'word:seen',
      'word:what',
      'word:they',
      'word:do',
      'word:she',
      'word:know',
    ]);
    expect(tokenize("didn't can't won't")).toEqual(['word:did', 'word:can', 'word:will']);
  });
  it('keeps an apostrophe that is no clitic', () => {
    expect(withoutClitic("o'neil")).toBe("o'neil");
    expect(withoutClitic("o'neil's")).toBe("o'neil");
    expect(withoutClitic('plain')).toBe('plain');
  });
});

describe('indexTokens', () => {
  it('puts a Porter2 stem beside each English word', () => {
    expect(indexTokens('Painting kids')).toEqual([
      'word:painting',
      'stem:paint',
      'word:kids',
      'stem:kid',
    ]);
  });
  it('stems no number, code or other script, and leaves Chinese as tokenize gives it', () => {
    expect(stemTerm('word:3.5')).toBeNull();
    expect(stemTerm('word:v2')).toBeNull();
    expect(stemTerm('han2:我们')).toBeNull();
    expect(indexTokens('我们改用 2023')).toEqual(tokenize('我们改用 2023'));
  });

  it('stems no run of letters longer than a word (a pasted blob stays one plain term)', () => {
    const longest = 'pneumonoultramicroscopicsilicovolcanoconioses';
    expect(longest.length).toBeLessThanOrEqual(MAX_STEMMED_LENGTH);
    expect(stemTerm(`word:${longest}`)).toBe('stem:pneumonoultramicroscopicsilicovolcanoconios');
    const blob = 'x'.repeat(5_000) + 's';
    expect(stemTerm(`word:${blob}`)).toBeNull();
    expect(indexTokens(blob)).toEqual([`word:${blob}`]);
  });
  it('finds other forms of a word, the exact form first', () => {
    const docs = [
      { id: 'a', fields: [{ text: 'we painted the fence', weight: 1 }] },
      { id: 'b', fields: [{ text: 'we are painting the fence', weight: 1 }] },
      { id: 'c', fields: [{ text: 'a quiet day at home', weight: 1 }] },
    ];
    expect(bm25Rank('painting', docs).map((r) => r.id)).toEqual(['b', 'a']);
    expect(bm25Rank('painted', docs).map((r) => r.id)).toEqual(['a', 'b']);
  });
  it('lets a possessive find the bare name, and the name find the possessive', () => {
    const docs = [
      { id: 'a', fields: [{ text: "Melanie's pottery class", weight: 1 }] },
      { id: 'b', fields: [{ text: 'a bowl of soup', weight: 1 }] },
    ];
    expect(bm25Rank('Melanie', docs).map((r) => r.id)).toEqual(['a']);
    expect(bm25Rank('What is in Melanie’s class?', docs).map((r) => r.id)).toEqual(['a']);
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

describe('tokenizing a long text in pieces (ADR 0043)', () => {
  const whole = (normal: string) =>
    [...new Intl.Segmenter('und', { granularity: 'word' }).segment(normal)]
      .filter((s) => s.isWordLike)
      .map((s) => s.segment);
  // Words, numbers, clitics, punctuation, Han, combining marks and emoji, in runs with and
  // without spaces: pieces cut before a space give what one pass over the whole text gives.
  const parts = fc.constantFrom(
    'word',
    "it's",
    '3.14',
    'a.b',
    'x_y',
    '東京タワー',
    'e\u0301',
    ' ',
    '  ',
    '\u0301',
    ', ',
    '-',
    '👍🏽',
    'Über',
    'можно',
    'ไทยภาษา',
    '\n',
    "can't",
    '2026-12-05',
  );
  const texts = fc.array(parts, { maxLength: 60 }).map((p) => normaliseText(p.join('')));

  it('gives the segments of one pass over the whole text, for any piece size', () => {
    fc.assert(
      fc.property(texts, fc.integer({ min: 1, max: 40 }), (normal, piece) => {
        expect([...wordSegments(normal, piece)]).toEqual(whole(normal));
      }),
      { numRuns: 300 },
    );
  });

  it('tokenizeAsync and indexTokensAsync give the synchronous tokens, pausing on a long text', async () => {
    let pauses = 0;
    const pause = async () => {
      pauses++;
    };
    const text = Array.from(
      { length: 4_000 },
      (_, i) => `Line ${i}: Priya's café 東京 paints.`,
    ).join('\n');
    expect(await tokenizeAsync(text, pause)).toEqual(tokenize(text));
    expect(pauses).toBeGreaterThan(1);
    expect(await indexTokensAsync(text, pause)).toEqual(indexTokens(text));
  });
});
