import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { joinParts, splitParts } from './text-parts.ts';

describe('splitParts', () => {
  it('splits paragraphs at blank lines and keeps the separators as leads', () => {
    const split = splitParts('one\ntwo\n\n  \nthree\n');
    expect(split.parts).toEqual([
      { kind: 'paragraph', lead: '', text: 'one\ntwo' },
      { kind: 'paragraph', lead: '\n\n  \n', text: 'three' },
    ]);
    expect(split.trailing).toBe('\n');
  });

  it('keeps a fenced block whole, blank lines included', () => {
    const split = splitParts('before\n```ts\nconst a = 1;\n\nconst b = 2;\n```\nafter');
    expect(split.parts.map((part) => part.kind)).toEqual(['paragraph', 'fence', 'paragraph']);
    expect(split.parts[1]?.text).toBe('```ts\nconst a = 1;\n\nconst b = 2;\n```');
  });

  it('runs an unclosed fence to the end of the text', () => {
    const split = splitParts('```\nok\n\nthanks');
    expect(split.parts).toEqual([{ kind: 'fence', lead: '', text: '```\nok\n\nthanks' }]);
  });

  it('needs the same fence character to close', () => {
    const split = splitParts('~~~\n```\nstill code\n~~~\nprose');
    expect(split.parts.map((part) => part.kind)).toEqual(['fence', 'paragraph']);
  });

  it('round-trips any text byte for byte', () => {
    const piece = fc.constantFrom('\n', '\n\n', ' ', '```', '~~~', 'a', '好', '😀', '\r\n', '\t');
    const text = fc.oneof(
      fc.string({ unit: 'grapheme' }),
      fc.array(piece, { maxLength: 40 }).map((pieces) => pieces.join('')),
    );
    fc.assert(
      fc.property(text, (value) => {
        expect(joinParts(splitParts(value))).toBe(value);
      }),
    );
  });
});
