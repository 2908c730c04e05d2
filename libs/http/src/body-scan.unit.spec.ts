import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findUnstorableValue, MAX_JSON_DEPTH, unstorableText } from './body-scan.ts';

/** Text a store keeps: no NUL, every surrogate paired (fast-check's `fullUnicode` never splits one). */
const storableText = fc
  .string({ unit: 'grapheme', maxLength: 20 })
  .filter((s) => !s.includes('\0'));
const storableJson = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    storableText,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(storableText, tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** `value` with `bad` put at `path` (a list of keys and indexes into existing containers). */
function place(value: unknown, path: number[], bad: unknown): { value: unknown; pointer: string } {
  if (path.length === 0 || value === null || typeof value !== 'object') {
    return { value: bad, pointer: '' };
  }
  const keys = Object.keys(value);
  if (keys.length === 0) return { value: bad, pointer: '' };
  const key = keys[path[0]! % keys.length]!;
  const inner = place((value as Record<string, unknown>)[key], path.slice(1), bad);
  const copy: Record<string, unknown> | unknown[] = Array.isArray(value)
    ? [...value]
    : { ...value };
  (copy as Record<string, unknown>)[key] = inner.value;
  const token = key.replace(/~/g, '~0').replace(/\//g, '~1');
  return { value: copy, pointer: `/${token}${inner.pointer}` };
}

describe('findUnstorableValue', () => {
  it('passes any JSON whose strings a store keeps, within the depth', () => {
    fc.assert(
      fc.property(storableJson, (value) => {
        expect(findUnstorableValue(value, 'body')).toBeNull();
      }),
    );
  });

  it('names the place of a NUL or a lone surrogate put anywhere', () => {
    fc.assert(
      fc.property(
        storableJson,
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.constantFrom('a\u0000b', '\u0000', 'x\ud800', '\udc00y', 'ok\ud83d'),
        (value, path, bad) => {
          const placed = place(value, path, bad);
          const issue = findUnstorableValue(placed.value, 'body');
          expect(issue).toMatchObject({ in: 'body', path: placed.pointer || '/' });
        },
      ),
    );
  });

  it('checks field names too, and escapes them as a JSON pointer', () => {
    expect(findUnstorableValue({ a: { 'x/y~\u0000': 1 } }, 'body')).toEqual({
      in: 'body',
      path: '/a/x~1y~0\u0000',
      message: 'a NUL character (\\u0000) in the field name',
    });
  });

  it('names the first offending value in document order', () => {
    expect(findUnstorableValue({ a: ['ok', '\u0000'], b: '\u0000' }, 'querystring')?.path).toBe(
      '/a/1',
    );
  });

  it(`takes ${MAX_JSON_DEPTH} levels and refuses the next, at any depth without recursion`, () => {
    const nested = (levels: number) => {
      let value: unknown = 'leaf';
      for (let i = 0; i < levels; i++) value = i % 2 ? [value] : { k: value };
      return value;
    };
    expect(findUnstorableValue(nested(MAX_JSON_DEPTH), 'body')).toBeNull();
    expect(findUnstorableValue(nested(MAX_JSON_DEPTH + 1), 'body')?.message).toBe(
      `nested deeper than ${MAX_JSON_DEPTH} levels`,
    );
    // Far past any call stack: JSON.parse builds it iteratively, and so must the scan walk it.
    const deep = JSON.parse(`${'['.repeat(500_000)}${']'.repeat(500_000)}`);
    expect(findUnstorableValue(deep, 'body')?.path.split('/')).toHaveLength(MAX_JSON_DEPTH + 1);
  });
});

describe('unstorableText', () => {
  it('keeps paired surrogates (emoji) and refuses lone ones at either end', () => {
    expect(unstorableText('ok 😀 ✓')).toBeNull();
    expect(unstorableText('\ud83d')).toBe('a lone UTF-16 surrogate');
    expect(unstorableText('\ude00x')).toBe('a lone UTF-16 surrogate');
    expect(unstorableText('\ude00\ud83d')).toBe('a lone UTF-16 surrogate');
    expect(unstorableText('a\u0000')).toBe('a NUL character (\\u0000)');
  });
});
