import { describe, expect, it } from 'vitest';
import { segmentWords } from './words.ts';

describe('segmentWords', () => {
  it('segments Latin and Han words with offsets into the input', () => {
    const text = '李明说pnpm很快';
    const words = segmentWords(text).filter((s) => s.wordLike);
    expect(words.map((w) => w.text)).toEqual(['李', '明', '说', 'pnpm', '很快']);
    for (const w of words) expect(text.slice(w.index, w.index + w.text.length)).toBe(w.text);
  });

  it('stays linear on long unpunctuated text, chunking without losing characters', () => {
    const text = `${'alpha beta gamma '.repeat(12_000)}${'汉字'.repeat(20_000)}`;
    const started = performance.now();
    const segments = segmentWords(text);
    // Unchunked, Node 20's segmenter needs tens of seconds for this; chunked, well under one.
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(segments.map((s) => s.text).join('')).toBe(text);
  });
});
