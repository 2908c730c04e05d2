import { describe, expect, it } from 'vitest';
import { PostingCache, type PostingScope } from './posting-cache.ts';

const scope: PostingScope = { schema: 'rm', tenantId: 't', spaceId: 's', kind: 'event' };
const bytes = (...xs: number[]) => Uint8Array.from(xs);

describe('PostingCache', () => {
  it('lays newer chunks over a snapshot, and a read that finishes late never replaces a newer one', () => {
    const cache = new PostingCache(1 << 20);
    const cold = cache.plan(scope, ['alpha']);
    expect(cold.terms[0]!.since).toBe(-1);
    expect(cache.accept(cold, 'E1')).toBe(true);
    cache.merge(cold, cold.terms[0]!, 'E1', [
      { chunk: 0, version: 3, data: bytes(1) },
      { chunk: 1, version: 5, data: bytes(2) },
    ]);

    // Two reads planned against the same snapshot (since 5); the later-planned one finishes first.
    const early = cache.plan(scope, ['alpha']);
    const late = cache.plan(scope, ['alpha']);
    expect(early.terms[0]!.since).toBe(5);
    cache.accept(late, 'E1');
    expect(
      cache.merge(late, late.terms[0]!, 'E1', [{ chunk: 1, version: 9, data: bytes(9) }]),
    ).toEqual([bytes(1), bytes(9)]);
    // The early read saw the index before version 9: its answer is used for its own search only.
    cache.accept(early, 'E1');
    expect(
      cache.merge(early, early.terms[0]!, 'E1', [{ chunk: 0, version: 7, data: bytes(7) }]),
    ).toEqual([bytes(7), bytes(2)]);
    expect(cache.plan(scope, ['alpha']).terms[0]!.since).toBe(9);
  });

  it('an answer planned under another epoch is refused, and everything of the old epoch dropped', () => {
    const cache = new PostingCache(1 << 20);
    const first = cache.plan(scope, ['alpha']);
    cache.accept(first, 'E1');
    cache.merge(first, first.terms[0]!, 'E1', [{ chunk: 0, version: 4, data: bytes(1) }]);
    cache.rememberDoc(scope, 'E1', 0, { id: 'doc-a', createdAt: 'x' });
    expect(cache.docs(scope, 'E1', [0]).get(0)?.id).toBe('doc-a');

    const planned = cache.plan(scope, ['alpha']);
    expect(planned.terms[0]!.since).toBe(4);
    expect(cache.accept(planned, 'E2')).toBe(false);
    expect(cache.stats()).toMatchObject({ terms: 0, docs: 0, bytes: 0 });
    expect(cache.docs(scope, 'E2', [0]).size).toBe(0);
    // A late writer of the old epoch is ignored.
    cache.rememberDoc(scope, 'E1', 0, { id: 'doc-a', createdAt: 'x' });
    expect(cache.stats().docs).toBe(0);
  });

  it('evicts the least recently used entries to stay within its bytes; 0 bytes keeps nothing', () => {
    const cache = new PostingCache(1000);
    for (const term of ['a', 'b', 'c', 'd']) {
      const read = cache.plan(scope, [term]);
      cache.accept(read, 'E1');
      cache.merge(read, read.terms[0]!, 'E1', [
        { chunk: 0, version: 1, data: new Uint8Array(200) },
      ]);
      expect(cache.stats().bytes).toBeLessThanOrEqual(1000);
    }
    expect(cache.plan(scope, ['a']).terms[0]!.since).toBe(-1);
    expect(cache.plan(scope, ['d']).terms[0]!.since).toBe(1);

    const off = new PostingCache(0);
    const read = off.plan(scope, ['a']);
    off.accept(read, 'E1');
    off.merge(read, read.terms[0]!, 'E1', [{ chunk: 0, version: 1, data: bytes(1) }]);
    expect(off.stats()).toMatchObject({ terms: 0, bytes: 0 });
  });
});
