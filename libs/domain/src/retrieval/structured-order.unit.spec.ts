import { describe, expect, it } from 'vitest';
import { planFusion, structuredOrder, type StructuredItem } from './structured-order.ts';

const items: StructuredItem[] = [
  { id: 'b', chronology: 300, effectiveWeight: 0.5, updatedAt: 10 },
  { id: 'a', chronology: 100, effectiveWeight: 0.5, updatedAt: 20 },
  { id: 'c', chronology: null, effectiveWeight: 1, updatedAt: 5 },
  { id: 'd', chronology: 200, effectiveWeight: 0.2, updatedAt: 30 },
  { id: 'e', chronology: 200, effectiveWeight: 0.2, updatedAt: 30 },
];

describe('structuredOrder (MM-RET-4)', () => {
  it('first → ascending chronology, timeless last, ties by id', () => {
    expect(structuredOrder(items, 'first')).toEqual(['a', 'd', 'e', 'b', 'c']);
  });
  it('latest → descending chronology, timeless last', () => {
    expect(structuredOrder(items, 'latest')).toEqual(['b', 'd', 'e', 'a', 'c']);
  });
  it('no intent → effective weight desc, then updatedAt desc, then id', () => {
    expect(structuredOrder(items)).toEqual(['c', 'a', 'b', 'd', 'e']);
  });
});

describe('planFusion (MM-RET-4)', () => {
  const base = {
    lexicalQuery: true,
    bm25: [] as string[],
    filterLists: [],
    meetingAll: [],
    browse: ['x', 'y'],
  };
  const ids = (input: Parameters<typeof planFusion>[0]) => planFusion(input).map((f) => f.id);

  it('a lexical query with no BM25 hit and no filter → []', () => {
    expect(planFusion(base)).toEqual([]);
  });

  it('an empty query with no filter browses in structured order', () => {
    expect(ids({ ...base, lexicalQuery: false })).toEqual(['x', 'y']);
  });

  it('no filter → BM25 order', () => {
    expect(ids({ ...base, bm25: ['y', 'x'] })).toEqual(['y', 'x']);
  });

  it('some meet all filters → only they, fused from BM25 ∩ them and their structured order', () => {
    const out = planFusion({
      ...base,
      bm25: ['z', 'q', 'p'],
      filterLists: [
        ['p', 'q', 'r'],
        ['q', 'p', 'r', 's'],
      ],
      meetingAll: ['p', 'q', 'r'],
    });
    // q: BM25∩ rank 0 + structured rank 1; p: BM25∩ rank 1 + structured rank 0; tie → best rank, id.
    expect(out.map((f) => f.id)).toEqual(['p', 'q', 'r']);
    expect(out[0]?.score).toBeCloseTo(1 / 62 + 1 / 61, 12);
    expect(out[2]?.score).toBeCloseTo(1 / 63, 12);
  });

  it('none meet all filters → BM25 and each filter list vote', () => {
    const out = ids({ ...base, bm25: ['z'], filterLists: [['p'], ['q', 'z']], meetingAll: [] });
    expect(out).toEqual(['z', 'p', 'q']);
  });
});
