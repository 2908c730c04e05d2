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
