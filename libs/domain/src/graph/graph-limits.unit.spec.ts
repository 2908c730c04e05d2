import { describe, expect, it } from 'vitest';
import {
  canonicalUtc,
  clampConfidence,
  compareInstants,
  cutFactValue,
  cutText,
  normaliseEntityName,
} from './graph-limits.ts';

describe('normaliseEntityName (MM-GRF-6)', () => {
  it.each([
    ['Alpha Corp', 'alphacorp'],
    ['alpha_corp', 'alphacorp'],
    ['AlphaCorp', 'alphacorp'],
    ['ALPHA-CORP', 'alphacorp'],
    ['ＡｌｐｈａＣｏｒｐ', 'alphacorp'],
    ['Alpha\u3000Corp', 'alphacorp'],
    ['  A公司 ', 'a公司'],
  ])('%j -> %j', (name, normalised) => {
    expect(normaliseEntityName(name)).toBe(normalised);
  });

  it('keeps other punctuation, so "Alpha.Corp" stays distinct', () => {
    expect(normaliseEntityName('Alpha.Corp')).not.toBe(normaliseEntityName('AlphaCorp'));
  });
});

describe('cut limits (MM-GRF-5, MM-GEN-4)', () => {
  it('cuts by code points after trimming', () => {
    const name = `  ${'😀'.repeat(170)}  `;
    const cut = cutText(name, 160);
    expect(Array.from(cut)).toHaveLength(160);
    expect(cut.startsWith('😀')).toBe(true);
  });

  it('cuts each list item to 1,200 code points and the list to 40 unique items', () => {
    const items = Array.from({ length: 45 }, (_, i) => `item ${i}`);
    expect(cutFactValue([...items, 'item 0'])).toEqual(items.slice(0, 40));
    expect(cutFactValue(['x'.repeat(1300)])).toEqual(['x'.repeat(1200)]);
    expect(cutFactValue('中'.repeat(1300))).toBe('中'.repeat(1200));
  });

  it('treats an empty value as nothing to state', () => {
    expect(cutFactValue('   ')).toBeNull();
    expect(cutFactValue(['', ' '])).toBeNull();
  });

  it.each([
    [undefined, 0.8],
    [Number.NaN, 0.8],
    [1.7, 1],
    [-0.2, 0],
    [0.42, 0.42],
  ])('confidence %s -> %s', (input, want) => {
    expect(clampConfidence(input)).toBe(want);
  });
});

describe('UTC instants without Date (MM-GEN-1)', () => {
  it.each([
    ['2024-05-01', '2024-05-01T00:00:00.000Z'],
    ['2024-05-01T10:20Z', '2024-05-01T10:20:00.000Z'],
    ['2024-05-01T10:20:30Z', '2024-05-01T10:20:30.000Z'],
    ['2024-05-01T10:20:30.1234Z', '2024-05-01T10:20:30.123Z'],
    ['2024-05-01T10:20:30+00:00', '2024-05-01T10:20:30.000Z'],
    ['2024-05-01T10:20:30+08:00', null],
    ['2024-13-01', null],
    ['next week', null],
  ])('%j -> %j', (text, want) => {
    expect(canonicalUtc(text)).toBe(want);
  });

  it('orders instants, not spellings', () => {
    // As raw strings '.000Z' sorts before 'Z'; the instants are equal.
    expect(compareInstants('2024-05-01T00:00:00Z', '2024-05-01T00:00:00.000Z')).toBe(0);
    expect(compareInstants('2024-05-01T00:00:00.500Z', '2024-05-01T00:00:01Z')).toBe(-1);
  });
});
