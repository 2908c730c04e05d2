import { describe, expect, it } from 'vitest';
import { boundSection } from './text-bounds.ts';

interface Item {
  id: string;
  text: string;
}
const item = {
  id: (t: Item) => t.id,
  text: (t: Item) => t.text,
  withText: (t: Item, text: string) => ({ ...t, text }),
};

describe('boundSection', () => {
  it('keeps a section within its bounds whole', () => {
    const items = [
      { id: 'a', text: 'one' },
      { id: 'b', text: 'two' },
    ];
    expect(boundSection(items, item, { itemChars: 10, sectionBytes: 100 })).toEqual({
      items,
      cut: [],
      omitted: 0,
    });
  });

  it('cuts a long item to itemChars code points, never inside a surrogate pair', () => {
    const out = boundSection([{ id: 'a', text: '😀'.repeat(20) }], item, {
      itemChars: 5,
      sectionBytes: 1000,
    });
    expect(out.items[0]!.text).toBe('😀'.repeat(5));
    expect(out.cut).toEqual(['a']);
  });

  it('keeps the newest items within sectionBytes (UTF-8) and leaves the oldest out', () => {
    const items = ['a', 'b', 'c', 'd'].map((id) => ({ id, text: 'é'.repeat(10) })); // 20 bytes
    const out = boundSection(items, item, { itemChars: 100, sectionBytes: 45 });
    expect(out.items.map((i) => i.id)).toEqual(['c', 'd']);
    expect(out.omitted).toBe(2);
  });

  it('a 2 MB item is cut, not dropped: the answer always shows the newest item', () => {
    const out = boundSection([{ id: 'huge', text: 'x'.repeat(2_000_000) }], item);
    expect(out.items[0]!.text).toHaveLength(4_000);
    expect(out).toMatchObject({ cut: ['huge'], omitted: 0 });
  });
});
