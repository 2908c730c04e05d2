import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatRef, parseRef, type EvidenceRef } from './refs.ts';

describe('evidence refs (MM-RET-9)', () => {
  it.each<[string, EvidenceRef]>([
    ['event:evt_1', { kind: 'event', id: 'evt_1' }],
    ['graph-node:node_1', { kind: 'graph-node', id: 'node_1', expanded: false }],
    ['graph-node:node_1:expanded', { kind: 'graph-node', id: 'node_1', expanded: true }],
    ['raw:blk_1:msg_2:3', { kind: 'raw', blockId: 'blk_1', messageId: 'msg_2', index: 3 }],
    ['block:blk_1:level:4', { kind: 'block', id: 'blk_1', level: 4 }],
  ])('%s parses and formats back', (text, ref) => {
    expect(parseRef(text)).toEqual(ref);
    expect(formatRef(ref)).toBe(text);
  });

  it.each([
    '',
    'event:',
    'event:a:b',
    'evt_1',
    'graph-node:node_1:collapsed',
    'raw:blk_1:msg_2',
    'raw:blk_1:msg_2:-1',
    'raw:blk_1:msg_2:01',
    'block:blk_1:level:6',
    'block:blk_1:lvl:3',
    'event:has space',
  ])('%j → null', (text) => {
    expect(parseRef(text)).toBeNull();
  });

  it('round-trips every well-formed ref', () => {
    const id = fc.stringMatching(/^[a-z0-9_]{1,12}$/);
    const ref: fc.Arbitrary<EvidenceRef> = fc.oneof(
      fc.record({ kind: fc.constant('event' as const), id }),
      fc.record({ kind: fc.constant('graph-node' as const), id, expanded: fc.boolean() }),
      fc.record({
        kind: fc.constant('raw' as const),
        blockId: id,
        messageId: id,
        index: fc.nat(1000),
      }),
      fc.record({ kind: fc.constant('block' as const), id, level: fc.integer({ min: 0, max: 5 }) }),
    );
    fc.assert(
      fc.property(ref, (r) => {
        expect(parseRef(formatRef(r))).toEqual(r);
      }),
    );
  });
});
