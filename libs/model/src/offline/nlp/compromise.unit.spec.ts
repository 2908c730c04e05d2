import { afterAll, describe, expect, it } from 'vitest';
import { ENGLISH_SCENARIOS } from '../../../../../test/scenarios/english.scenarios.ts';
import { splitSentences } from '../sentences.ts';
import { CHINESE_BLOCK, ENGLISH_BLOCK, FILLER_BLOCK } from '../test-blocks.ts';
import nlp, { compromiseBulkMatch, indexedBulkMatch, type BulkMatch } from './compromise.ts';

const SENTENCES = [
  ...ENGLISH_SCENARIOS.flatMap((s) => s.sessions.flatMap((x) => x.turns.map(([, text]) => text))),
  ...[ENGLISH_BLOCK, CHINESE_BLOCK, FILLER_BLOCK].flatMap((b) => b.messages.map((m) => m.content)),
  "Tom is on vacation until December 8, so Priya covers infra, and we'll ship v2.1 on Friday.",
  "I'm not sure if she'd've gone — Dr. Smith's team (NYC) moved the launch to 10/12 at 3pm.",
  'Running, swimming and biking: that is what Melanie did at Lake Tahoe with Google employees.',
].flatMap((text) => splitSentences(text));

/** What a sweep found, comparable across calls: the pattern itself and where it matched. */
const found = (results: ReturnType<BulkMatch>) =>
  results.map(({ pointer, ...pattern }) => ({ pattern, pointer }));

describe('compromise with the indexed sweep', () => {
  afterAll(() => {
    nlp.plugin({ methods: { one: { bulkMatch: indexedBulkMatch } } });
  });

  it('is installed', () => {
    expect((nlp.methods() as { one: { bulkMatch: unknown } }).one.bulkMatch).toBe(indexedBulkMatch);
  });

  it('finds the same matches in the same order as compromise’s own sweep', () => {
    let sweeps = 0;
    let matches = 0;
    // Every sweep compromise makes while tagging (its post-tagger and chunker) runs both.
    const both: BulkMatch = (document, net, methods, opts) => {
      const theirs = compromiseBulkMatch(document, net, methods, opts);
      const ours = indexedBulkMatch(document, net, methods, opts);
      expect(found(ours)).toEqual(found(theirs));
      sweeps += 1;
      matches += theirs.length;
      return theirs;
    };
    nlp.plugin({ methods: { one: { bulkMatch: both } } });
    for (const sentence of SENTENCES) nlp(sentence).compute('root');
    expect(sweeps).toBeGreaterThan(SENTENCES.length);
    expect(matches).toBeGreaterThan(SENTENCES.length);
  });

  it('honours matchOne as compromise does', () => {
    const doc = nlp('Priya covers infra. Tom is away.');
    const net = nlp.buildNet([{ match: '#Person', tag: 'Actor' }]) as Parameters<BulkMatch>[1];
    const { document, methods } = doc as unknown as {
      document: Parameters<BulkMatch>[0];
      methods: Parameters<BulkMatch>[2];
    };
    const ours = indexedBulkMatch(document, net, methods, { matchOne: true });
    const theirs = compromiseBulkMatch(document, net, methods, { matchOne: true });
    expect(found(ours)).toEqual(found(theirs));
    expect(ours).toHaveLength(1);
  });
});
