import { describe, expect, it } from 'vitest';
import { dedupePastes, REPEATED_PASTE_MARKER } from './paste-dedupe.ts';

const LONG_PARAGRAPH =
  'The deployment checklist requires a database backup, a smoke test on staging, and sign-off.';

describe('dedupePastes (MM-BLK-12)', () => {
  it('keeps the first copy of a >= 80-char paragraph and replaces the later one', () => {
    expect(LONG_PARAGRAPH.length).toBeGreaterThanOrEqual(80);
    expect(dedupePastes([LONG_PARAGRAPH, 'Sure, noted.', LONG_PARAGRAPH])).toEqual([
      LONG_PARAGRAPH,
      'Sure, noted.',
      REPEATED_PASTE_MARKER,
    ]);
  });

  it('compares with whitespace collapsed and case ignored', () => {
    const variant = LONG_PARAGRAPH.toUpperCase().replace(/ /g, '  \n');
    expect(dedupePastes([LONG_PARAGRAPH, variant])[1]).toBe(REPEATED_PASTE_MARKER);
  });

  it('keeps short repeated prose', () => {
    const short = 'Use pnpm for this repository.';
    expect(dedupePastes([short, short])).toEqual([short, short]);
  });

  it('keeps a 79-char paragraph repeated', () => {
    const text = 'a'.repeat(39) + ' ' + 'b'.repeat(39);
    expect(text.length).toBe(79);
    expect(dedupePastes([text, text])).toEqual([text, text]);
  });

  it('replaces a repeated fenced block even when it is under 80 chars', () => {
    const fence = '```sh\nnpm run build && npm test -- --project unit --reporter verbose\n```';
    expect(fence.length).toBeLessThan(80);
    expect(dedupePastes([`Run:\n\n${fence}`, `Again:\n\n${fence}`])).toEqual([
      `Run:\n\n${fence}`,
      `Again:\n\n${REPEATED_PASTE_MARKER}`,
    ]);
  });

  it('replaces a repeated multi-line code-like part under 80 chars', () => {
    const code = 'const alpha = 1;\nconst beta = 2;\nconsole.log(alpha + beta);';
    expect(code.length).toBeLessThan(80);
    expect(dedupePastes([code, code])).toEqual([code, REPEATED_PASTE_MARKER]);
  });

  it('keeps repeated multi-line prose under 80 chars that is not code-like', () => {
    const prose = 'Shopping list for the weekend\nmilk and bread\nand some apples';
    expect(dedupePastes([prose, prose])).toEqual([prose, prose]);
  });

  it('keeps a repeat that is not longer than the marker itself', () => {
    const tiny = '```\nls\n```';
    expect(dedupePastes([tiny, tiny])).toEqual([tiny, tiny]);
  });

  it('dedupes within one message and leaves other parts byte-identical', () => {
    const text = `${LONG_PARAGRAPH}\n\n  Keep  me.\n\n${LONG_PARAGRAPH}\n`;
    expect(dedupePastes([text])).toEqual([
      `${LONG_PARAGRAPH}\n\n  Keep  me.\n\n${REPEATED_PASTE_MARKER}\n`,
    ]);
  });
});
