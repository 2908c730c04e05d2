import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundedPage, withinBytes } from './pages.ts';

const size = (items: unknown[]) =>
  items.reduce<number>((n, item) => n + Buffer.byteLength(JSON.stringify(item)), 0);

describe('withinBytes', () => {
  it('keeps the leading items that fit, at least one, and says whether it left any out', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'grapheme', maxLength: 50 }), { maxLength: 30 }),
        fc.integer({ min: 1, max: 400 }),
        (items, maxBytes) => {
          const { items: kept, truncated } = withinBytes(items, maxBytes);
          expect(kept).toEqual(items.slice(0, kept.length));
          expect(truncated).toBe(kept.length < items.length);
          if (kept.length > 1) expect(size(kept)).toBeLessThanOrEqual(maxBytes);
          if (truncated) {
            expect(kept.length).toBeGreaterThanOrEqual(1);
            expect(size(items.slice(0, kept.length + 1))).toBeGreaterThan(maxBytes);
          }
        },
      ),
    );
  });

  it('keeps one item larger than the bound alone, so paging moves on', () => {
    expect(withinBytes(['x'.repeat(100), 'y'], 10)).toEqual({
      items: ['x'.repeat(100)],
      truncated: true,
    });
  });
});

describe('boundedPage', () => {
  it('continues after the last item kept, whether the page ended at its limit or its bytes', () => {
    const rows = ['aaaa', 'bbbb', 'cccc', 'dddd'];
    expect(boundedPage(rows, { limit: 3, offset: 10 })).toEqual({
      items: ['aaaa', 'bbbb', 'cccc'],
      truncated: false,
      nextOffset: 13,
    });
    expect(boundedPage(rows, { limit: 3, offset: 10 }, 13)).toEqual({
      items: ['aaaa', 'bbbb'],
      truncated: true,
      nextOffset: 12,
    });
    expect(boundedPage(rows.slice(0, 2), { limit: 3, offset: 0 })).toEqual({
      items: ['aaaa', 'bbbb'],
      truncated: false,
      nextOffset: null,
    });
  });
});
