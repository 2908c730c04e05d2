import { describe, expect, it } from 'vitest';
import { encodePostings, type PostingColumns } from './packed-postings.ts';
import { PostingCache, type PostingScope } from './posting-cache.ts';

const scope: PostingScope = { schema: 'rm', tenantId: 't', spaceId: 's', kind: 'event' };
/** A chunk with one entry per number (tf = the number + 1, length 10, status 1). */
const bytes = (...docNos: number[]) =>
  encodePostings(docNos.map((docNo) => ({ docNo, tf: docNo + 1, length: 10, status: 1 })));
const entries = (c: PostingColumns) =>
  Array.from(c.docNos.subarray(0, c.count), (docNo, i) => [
    docNo,
    c.tfs[i],
    c.lengths[i],
    c.statuses[i],
  ]);
const entry = (docNo: number) => [docNo, docNo + 1, 10, 1];

describe('PostingCache', () => {
  it('lays newer chunks over a snapshot, and a read that finishes late never replaces a newer one', () => {
    const cache = new PostingCache(1 << 20);
    const cold = cache.plan(scope, ['alpha']);
    expect(cold.terms[0]!.since).toBe(-1);
    expect(cache.accept(cold, 'E1')).toBe(true);
    const first = cache.merge(cold, cold.terms[0]!, 'E1', [
      { chunk: 0, version: 3, data: bytes(1, 3) },
      { chunk: 1, version: 5, data: bytes(600) },
    ]);
    expect(entries(first)).toEqual([entry(1), entry(3), entry(600)]);

    // Two reads planned against the same snapshot (since 5); the later-planned one finishes first.
    const early = cache.plan(scope, ['alpha']);
    const late = cache.plan(scope, ['alpha']);
    expect(early.terms[0]!.since).toBe(5);
    cache.accept(late, 'E1');
    expect(
      entries(
        cache.merge(late, late.terms[0]!, 'E1', [{ chunk: 1, version: 9, data: bytes(609, 700) }]),
      ),
    ).toEqual([entry(1), entry(3), entry(609), entry(700)]);
    // The early read saw the index before version 9: its answer is used for its own search only.
    cache.accept(early, 'E1');
    expect(
      entries(
        cache.merge(early, early.terms[0]!, 'E1', [{ chunk: 0, version: 7, data: bytes(7) }]),
      ),
    ).toEqual([entry(7), entry(600)]);
    expect(cache.plan(scope, ['alpha']).terms[0]!.since).toBe(9);
    // A new chunk number between kept ones lands in chunk order; an emptied chunk stays, empty.
    const next = cache.plan(scope, ['alpha']);
    cache.accept(next, 'E1');
    expect(
      entries(
        cache.merge(next, next.terms[0]!, 'E1', [
          { chunk: 0, version: 10, data: new Uint8Array(0) },
          { chunk: 3, version: 11, data: bytes(1600) },
          { chunk: 2, version: 11, data: bytes(1030) },
        ]),
      ),
    ).toEqual([entry(609), entry(700), entry(1030), entry(1600)]);
    const after = cache.plan(scope, ['alpha']).terms[0]!;
    expect(after.since).toBe(11);
    expect([...after.base!.chunks.keys()]).toEqual([0, 1, 2, 3]);
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
        { chunk: 0, version: 1, data: bytes(...Array.from({ length: 30 }, (_, i) => i)) },
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
