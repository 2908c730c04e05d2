import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dropFillers, FILLER_PHRASES, isFillerSentence, splitSentences } from './fillers.ts';

describe('dropFillers (MM-BLK-11)', () => {
  describe('acceptance vectors', () => {
    it('drops a standalone "Okay." and keeps "The source must remain available."', () => {
      expect(dropFillers('Okay.')).toBe('');
      expect(dropFillers('Okay.\n\nThe source must remain available.')).toBe(
        'The source must remain available.',
      );
      expect(dropFillers('The source must remain available.')).toBe(
        'The source must remain available.',
      );
    });
    it('"好的！" -> dropped', () => {
      expect(dropFillers('好的！')).toBe('');
    });
    it('"好的，我们改用 pnpm。" -> kept', () => {
      expect(dropFillers('好的，我们改用 pnpm。')).toBe('好的，我们改用 pnpm。');
    });
    it('"Thanks! Let\'s use pnpm." -> "Let\'s use pnpm."', () => {
      expect(dropFillers("Thanks! Let's use pnpm.")).toBe("Let's use pnpm.");
    });
  });

  it.each(FILLER_PHRASES.map((phrase) => [phrase]))('drops the whitelisted phrase %j', (phrase) => {
    expect(dropFillers(phrase)).toBe('');
    expect(dropFillers(`${phrase}～～`)).toBe('');
    expect(dropFillers(`${phrase.toUpperCase()}!`)).toBe('');
  });

  it('lists exactly the 26 phrases of the spec', () => {
    expect(FILLER_PHRASES).toHaveLength(26);
    expect(new Set(FILLER_PHRASES).size).toBe(26);
  });

  it('does not split at "." so a filler followed by content stays', () => {
    expect(dropFillers('Okay. The source must remain available.')).toBe(
      'Okay. The source must remain available.',
    );
  });

  it('keeps near-fillers that are not exact phrases', () => {
    for (const text of ['ok then', 'Thanks a lot!', 'yes, but not now', '好的呀']) {
      expect(dropFillers(text)).toBe(text);
    }
  });

  it('splits after 。！？!? and newlines', () => {
    expect(dropFillers('谢谢！请改用 pnpm。')).toBe('请改用 pnpm。');
    expect(dropFillers('Sure\nUse pnpm')).toBe('Use pnpm');
    expect(dropFillers('Use pnpm?\nok')).toBe('Use pnpm?');
    expect(dropFillers('First! ok! Second')).toBe('First! Second');
  });

  it('leaves a paragraph with nothing dropped byte-identical', () => {
    const kept = '  Keep   this\t text ,  spaced\r\nexactly  ';
    expect(dropFillers(`${kept}\n\nThanks!`)).toBe(kept);
  });

  it('does not touch fenced code', () => {
    expect(dropFillers('```\nok\n```')).toBe('```\nok\n```');
    expect(dropFillers('Thanks!\n\n```\nthanks\n```')).toBe('```\nthanks\n```');
  });

  it('is idempotent and never grows the text', () => {
    const piece = fc.constantFrom(
      'ok',
      'Thanks!',
      '好的！',
      'Use pnpm.',
      '\n',
      '\n\n',
      ' ',
      '```',
      '？',
      'The source must remain available.',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 20 }), (pieces) => {
        const text = pieces.join('');
        const once = dropFillers(text);
        expect(dropFillers(once)).toBe(once);
        expect(once.length).toBeLessThanOrEqual(text.length);
      }),
    );
  });
});

describe('sentence helpers', () => {
  it('keeps punctuation runs with their sentence', () => {
    expect(splitSentences('Really?! Yes.')).toEqual(['Really?!', ' Yes.']);
    expect(splitSentences('A!\nB')).toEqual(['A!\n', 'B']);
  });

  it('strips trailing punctuation before comparing', () => {
    expect(isFillerSentence(' Got it!!! ')).toBe(true);
    expect(isFillerSentence('收到，')).toBe(true);
    expect(isFillerSentence('got')).toBe(false);
  });
});
