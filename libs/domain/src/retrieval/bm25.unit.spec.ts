import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bm25Rank, bm25Score, docTermFrequencies, memoTokenizer, type Bm25Doc } from './bm25.ts';
import { indexTokens, tokenize } from './tokenize.ts';

const doc = (id: string, ...fields: [string, number][]): Bm25Doc => ({
  id,
  fields: fields.map(([text, weight]) => ({ text, weight })),
});

describe('docTermFrequencies (MM-RET-1 field weights)', () => {
  it('repeats a field’s tokens floor(w) times and ignores weights below 1', () => {
    const { terms, length } = docTermFrequencies([
      { text: 'Apple pie', weight: 2.9 },
      { text: 'apple', weight: 1 },
      { text: 'ignored', weight: 0.5 },
    ]);
    // Every English word comes with its stem, at the field's weight.
    expect(Object.fromEntries(terms)).toEqual({
      'word:apple': 3,
      'stem:appl': 3,
      'word:pie': 2,
      'stem:pie': 2,
    });
    expect(length).toBe(10);
  });

  it('gives the same numbers with a memoised tokenizer, which tokenizes each text once', () => {
    const text = fc.array(fc.constantFrom('Apple', 'pie', '李明去学校', 'x', '', 'it’s 3.5'), {
      maxLength: 5,
    });
    const field = fc.record({
      text: text.map((w) => w.join(' ')),
      weight: fc.integer({ min: 0, max: 3 }),
    });
    fc.assert(
      fc.property(fc.array(fc.array(field, { maxLength: 4 }), { maxLength: 6 }), (docs) => {
        const tokens = memoTokenizer();
        for (const fields of docs) {
          expect(docTermFrequencies(fields, tokens)).toEqual(docTermFrequencies(fields));
        }
      }),
    );
    const tokens = memoTokenizer();
    const first = tokens('The previous message');
    expect(first).toEqual(indexTokens('The previous message'));
    // The second call for the same text answers from the memo: the very same array.
    expect(tokens('The previous message')).toBe(first);
  });
});

describe('bm25Rank (MM-RET-2)', () => {
  const docs = [
    doc('d1', ['apple banana', 1]),
    doc('d2', ['apple', 2], ['cherry', 1]),
    doc('d3', ['cherry date', 1.9]),
  ];

  it('matches a hand-computed small example', () => {
    // Each word is indexed with its stem, so N = 3, lengths 4, 6, 4 → avgdl = 14/3; "apple"
    // (word:apple and stem:appl alike) is in d1 (tf 1) and d2 (tf 2): df = 2. The query's two
    // terms score the same, so a document gets twice one term's score.
    const k1 = 1.2;
    const b = 0.75;
    const avgdl = 14 / 3;
    const idf = Math.log(1 + (3 - 2 + 0.5) / (2 + 0.5));
    const d1 = (2 * (idf * (1 * (k1 + 1)))) / (1 + k1 * (1 - b + (b * 4) / avgdl));
    const d2 = (2 * (idf * (2 * (k1 + 1)))) / (2 + k1 * (1 - b + (b * 6) / avgdl));
    const ranked = bm25Rank('apple', docs);
    expect(ranked.map((r) => r.id)).toEqual(['d2', 'd1']);
    expect(ranked[0]?.score).toBeCloseTo(d2, 12);
    expect(ranked[1]?.score).toBeCloseTo(d1, 12);
  });

  it('sums unique query terms; a repeated query word counts once', () => {
    const one = bm25Rank('apple cherry', docs);
    expect(bm25Rank('apple apple cherry', docs)).toEqual(one);
    const d2 = one.find((r) => r.id === 'd2')?.score ?? 0;
    // apple and cherry, each as a word and as a stem.
    const expected =
      2 * bm25Score({ tf: 2, docLength: 6, avgDocLength: 14 / 3, df: 2, N: 3, k1: 1.2, b: 0.75 }) +
      2 * bm25Score({ tf: 1, docLength: 6, avgDocLength: 14 / 3, df: 2, N: 3, k1: 1.2, b: 0.75 });
    expect(d2).toBeCloseTo(expected, 12);
  });

  it('breaks ties by id', () => {
    const tied = [doc('b', ['same words', 1]), doc('a', ['same words', 1]), doc('c', ['other', 1])];
    expect(bm25Rank('same', tied).map((r) => r.id)).toEqual(['a', 'b']);
  });

  it('李明 is found', () => {
    const zh = [
      doc('m1', ['我们周五去学校演讲', 1]),
      doc('m2', ['李明说他周五去学校演讲', 1]),
      doc('m3', ['Li Ming is not written in Han here', 1]),
    ];
    expect(bm25Rank('李明', zh).map((r) => r.id)).toEqual(['m2']);
  });

  it('a non-matching query → []', () => {
    expect(bm25Rank('zebra', docs)).toEqual([]);
    expect(bm25Rank('   ', docs)).toEqual([]);
  });

  it('ranks the planted best hit first among 1,001 generated docs', () => {
    const topics = ['lunch', 'weather', 'school', 'talk', 'budget', 'release', 'march'];
    const corpus = Array.from({ length: 1001 }, (_, i) =>
      doc(`t${String(i).padStart(4, '0')}`, [
        `turn ${i} we chatted about ${topics[i % 7]} and ${topics[(i * 3) % 7]} again`,
        1,
      ]),
    );
    corpus[613] = doc('planted', ['the school talk is on 12 March in the main hall', 1]);
    const ranked = bm25Rank('when is the school talk in March', corpus);
    expect(ranked[0]?.id).toBe('planted');
    expect(ranked.length).toBeGreaterThan(100);
  });

  it('never returns a doc that shares no query term', () => {
    const word = fc.constantFrom('alpha', 'beta', 'gamma', 'delta', '李明', '学校', 'x');
    const text = fc.array(word, { maxLength: 6 }).map((w) => w.join(' '));
    const field = fc.record({ text, weight: fc.double({ min: 0, max: 4, noNaN: true }) });
    const docsArb = fc.uniqueArray(
      fc.record({ id: fc.string({ minLength: 1, maxLength: 4 }), fields: fc.array(field) }),
      { selector: (d) => d.id, maxLength: 12 },
    );
    fc.assert(
      fc.property(text, docsArb, (query, corpus) => {
        const q = new Set(tokenize(query));
        for (const hit of bm25Rank(query, corpus)) {
          const fields = corpus.find((d) => d.id === hit.id)?.fields ?? [];
          const tokens = fields.filter((f) => f.weight >= 1).flatMap((f) => tokenize(f.text));
          expect(hit.score).toBeGreaterThan(0);
          expect(tokens.some((t) => q.has(t))).toBe(true);
        }
      }),
    );
  });
});
