import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isEnvelope, keyIdsOf, open, seal } from './envelope.ts';

const key = (id: string) => ({ id, key: randomBytes(32) });

describe('sealed values (ADR 0046)', () => {
  it('opens with any one of its keys and holds no plaintext', () => {
    const a = key('a');
    const b = key('b');
    const value = { content: 'secret words 你好', n: 1 };
    const envelope = seal(value, [a, b], 'stratagate:t/s');
    expect(isEnvelope(envelope)).toBe(true);
    expect(JSON.stringify(envelope)).not.toContain('secret');
    expect(keyIdsOf(envelope)).toEqual(['a', 'b']);
    expect(open(envelope, new Map([['b', b.key]]), 'stratagate:t/s')).toEqual({ value });
    expect(open(envelope, new Map([['a', a.key]]), 'stratagate:t/s')).toEqual({ value });
  });

  it('does not open without its keys, under another space, or with no key at all', () => {
    const a = key('a');
    const envelope = seal('x', [a], 'stratagate:t/s');
    expect(open(envelope, new Map(), 'stratagate:t/s')).toBeUndefined();
    expect(open(envelope, new Map([['c', randomBytes(32)]]), 'stratagate:t/s')).toBeUndefined();
    expect(() => open(envelope, new Map([['a', a.key]]), 'stratagate:t/other')).toThrow();
    const orphan = seal('born erased', [], 'stratagate:t/s');
    expect(orphan.to).toEqual([]);
    expect(open(orphan, new Map([['a', a.key]]), 'stratagate:t/s')).toBeUndefined();
  });

  it('detects a changed ciphertext', () => {
    const a = key('a');
    const envelope = seal('x', [a], 'aad');
    const ct = Buffer.from(envelope.ct, 'base64');
    ct[0] = ct[0]! ^ 1;
    expect(() =>
      open({ ...envelope, ct: ct.toString('base64') }, new Map([['a', a.key]]), 'aad'),
    ).toThrow();
  });
});

describe('sealed values that need every key (ADR 0046, topic chapters)', () => {
  it('opens only with all of its keys', () => {
    const [a, b, c] = [key('a'), key('b'), key('c')];
    const value = { title: 'Project X', text: 'moved from npm to pnpm' };
    const envelope = seal(value, [a, b, c], 'aad', 'all');
    expect(envelope.all).toBe(1);
    expect(keyIdsOf(envelope)).toEqual(['a', 'b', 'c']);
    const all = new Map([a, b, c].map((k) => [k.id, k.key]));
    expect(open(envelope, all, 'aad')).toEqual({ value });
    for (const gone of ['a', 'b', 'c']) {
      const rest = new Map([...all].filter(([id]) => id !== gone));
      expect(open(envelope, rest, 'aad')).toBeUndefined();
    }
  });

  it('with one key is an ordinary envelope of that key', () => {
    const a = key('a');
    const envelope = seal('x', [a], 'aad', 'all');
    expect(open(envelope, new Map([['a', a.key]]), 'aad')).toEqual({ value: 'x' });
    expect(open(envelope, new Map(), 'aad')).toBeUndefined();
  });
});
