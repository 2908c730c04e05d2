import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assertStreamPrefix,
  decodeStreamPart,
  encodeStreamPart,
  MAX_SPACE_STREAM_NAME_LENGTH,
  parseSpaceStreamName,
  spaceStreamName,
  streamNamePrefix,
} from './kurrent-streams.ts';

// Any well-formed string within the domain's bounds (astral characters count as two units).
const part = (maxUnits: number) =>
  fc
    .string({ unit: 'binary', minLength: 1, maxLength: maxUnits })
    .filter((s) => s.length >= 1 && s.length <= maxUnits);
const space = fc.record({ tenantId: part(64), spaceId: part(128) });

describe('kurrentdb stream names', () => {
  it('names a plain space readably, in the prefix category', () => {
    expect(spaceStreamName('sg', { tenantId: 'acme', spaceId: 'support_bot.v2' })).toBe(
      'sg-acme-support_bot.v2',
    );
    expect(spaceStreamName('sg', { tenantId: 'tenant-1', spaceId: 'space-7' })).toBe(
      'sg-tenant%2D1-space%2D7',
    );
  });

  it('encodes odd characters to ASCII and decodes them back', () => {
    const odd = [
      { tenantId: '租户-ä', spaceId: 'raum/🧠 memory' },
      { tenantId: '$system', spaceId: '$$meta' },
      { tenantId: 'a%2Db', spaceId: "!~*'()" },
      { tenantId: ' ', spaceId: '\u0000\n\t' },
      { tenantId: 'x-y', spaceId: '-' },
    ];
    for (const s of odd) {
      const name = spaceStreamName('sg', s);
      expect(name).toMatch(/^sg-[A-Za-z0-9_.%]+-[A-Za-z0-9_.%]+$/);
      expect(name.split('-')).toHaveLength(3);
      expect(parseSpaceStreamName('sg', name)).toEqual(s);
    }
    expect(spaceStreamName('sg', odd[0]!)).toBe(
      'sg-%E7%A7%9F%E6%88%B7%2D%C3%A4-raum%2F%F0%9F%A7%A0%20memory',
    );
  });

  it('round-trips every space, and two spaces never share a stream', () => {
    fc.assert(
      fc.property(space, (s) => {
        expect(parseSpaceStreamName('sg', spaceStreamName('sg', s))).toEqual(s);
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(space, space, (a, b) => {
        const same = a.tenantId === b.tenantId && a.spaceId === b.spaceId;
        expect(spaceStreamName('sg', a) === spaceStreamName('sg', b)).toBe(same);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps tenant and space apart: moving a character between them changes the name', () => {
    const a = spaceStreamName('sg', { tenantId: 'a-b', spaceId: 'c' });
    const b = spaceStreamName('sg', { tenantId: 'a', spaceId: 'b-c' });
    expect(a).not.toBe(b);
  });

  it('stays within its bound for the longest spaces the domain allows', () => {
    const prefix = 'p'.repeat(32);
    const longest = { tenantId: '€'.repeat(64), spaceId: '€'.repeat(128) };
    const name = spaceStreamName(prefix, longest);
    expect(name.length).toBe(MAX_SPACE_STREAM_NAME_LENGTH);
    expect(MAX_SPACE_STREAM_NAME_LENGTH).toBe(1762);
    const astral = { tenantId: '🧠'.repeat(32), spaceId: '🧠'.repeat(64) };
    expect(spaceStreamName(prefix, astral).length).toBeLessThan(MAX_SPACE_STREAM_NAME_LENGTH);
    expect(parseSpaceStreamName(prefix, name)).toEqual(longest);
    fc.assert(
      fc.property(space, (s) => {
        expect(spaceStreamName(prefix, s).length).toBeLessThanOrEqual(MAX_SPACE_STREAM_NAME_LENGTH);
      }),
      { numRuns: 200 },
    );
  });

  it('refuses spaces outside the domain bounds and lone surrogates', () => {
    expect(() => spaceStreamName('sg', { tenantId: '', spaceId: 's' })).toThrow(/cannot name/);
    expect(() => spaceStreamName('sg', { tenantId: 't'.repeat(65), spaceId: 's' })).toThrow();
    expect(() => spaceStreamName('sg', { tenantId: 't', spaceId: 's'.repeat(129) })).toThrow();
    expect(() => spaceStreamName('sg', { tenantId: 't\uD800', spaceId: 's' })).toThrow(/surrogate/);
    expect(() => spaceStreamName('sg', { tenantId: 't', spaceId: '\uDC00x' })).toThrow();
  });

  it('parses only canonical names of its own prefix', () => {
    expect(parseSpaceStreamName('sg', 'sg-a-b')).toEqual({ tenantId: 'a', spaceId: 'b' });
    expect(parseSpaceStreamName('sg', 'other-a-b')).toBeNull();
    expect(parseSpaceStreamName('sg', 'sg-a-b-c')).toBeNull();
    expect(parseSpaceStreamName('sg', 'sg-a')).toBeNull();
    expect(parseSpaceStreamName('sg', 'sg-%e2%82%ac-b')).toBeNull(); // lowercase hex
    expect(parseSpaceStreamName('sg', 'sg-%41-b')).toBeNull(); // "A" need not be escaped
    expect(parseSpaceStreamName('sg', 'sg-%FF-b')).toBeNull(); // not UTF-8
    expect(parseSpaceStreamName('sg', 'sg--b')).toBeNull();
    expect(parseSpaceStreamName('sg', '$$sg-a-b')).toBeNull();
    expect(decodeStreamPart(encodeStreamPart('a b'))).toBe('a b');
  });

  it('accepts prefixes that cannot collide with system streams or the separator', () => {
    for (const ok of ['sg', 'sgt0a1b2c', 'Stratagate_prod']) {
      expect(() => assertStreamPrefix(ok)).not.toThrow();
    }
    for (const bad of ['', '$sg', 'sg-x', '1sg', 'sg%', 's'.repeat(33), 'sg ']) {
      expect(() => assertStreamPrefix(bad)).toThrow(/prefix/);
    }
    // `$all` reads filter on "<prefix>-": a log with a longer prefix is not included.
    expect(
      spaceStreamName('sgx', { tenantId: 'a', spaceId: 'b' }).startsWith(streamNamePrefix('sg')),
    ).toBe(false);
  });
});
