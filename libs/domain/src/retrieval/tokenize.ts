import stem from 'wink-porter2-stemmer';

/**
 * MM-RET-1: NFKC, lower-case, collapsed whitespace; `word:<seg>` for word-like Intl.Segmenter
 * segments, plus overlapping Han bigrams `han2:xy` per Han run (`han1:x` for a single character).
 * Segmenters are created once: construction is the expensive part.
 *
 * An English word keeps no clitic: "John's" is `word:john`, "they'll" `word:they`, "didn't"
 * `word:did` (the segmenter keeps them whole, so a possessive never matched the bare name). The
 * search index adds a Porter2 stem beside each word (`indexTokens`); `tokenize` itself stays the
 * surface words that the graph's match rule and the remember gate compare.
 */
const segmenter = new Intl.Segmenter('und', { granularity: 'word' });
const HAN_RUN = /\p{Script=Han}+/gu;
const HAN_ONLY = /^\p{Script=Han}+$/u;
/** Typographic apostrophes, as phones and word processors write them. */
const APOSTROPHES = /[\u2019\u02bc\uff07]/g;
/** A clitic at the end of a word: possessive 's, contracted am/are/have/will/would, and n't. */
const CLITIC = /^(.+?)(?:'s|'m|'re|'ve|'ll|'d|n't)$/;
/** Contractions whose stem is not what remains when "n't" is cut off. */
const IRREGULAR_NEGATIONS: Readonly<Record<string, string>> = {
  "can't": 'can',
  "won't": 'will',
  "shan't": 'shall',
};
/** Words the stemmer is for: Latin letters only (numbers, codes and other scripts keep theirs). */
const ENGLISH_WORD = /^[a-z]+$/;
/**
 * Longer "words" are not English words but runs of letters (a pasted blob, a key); the stemmer's
 * suffix patterns take time quadratic in the length, so a 200 KB run would stall the process.
 */
export const MAX_STEMMED_LENGTH = 48;

export function normaliseText(text: string): string {
  return text.normalize('NFKC').toLocaleLowerCase().replace(/\s+/g, ' ').trim();
}

/** An English word without its clitic; other words unchanged ("o'neil" has none). */
export function withoutClitic(word: string): string {
  if (!word.includes("'")) return word;
  const irregular = IRREGULAR_NEGATIONS[word];
  if (irregular !== undefined) return irregular;
  const base = CLITIC.exec(word)?.[1] ?? word;
  // A plural possessive ("the kids' room") keeps a trailing apostrophe only in some segmenters.
  return base.endsWith("'") ? base.slice(0, -1) : base;
}

export function tokenize(text: string): string[] {
  const normal = normaliseText(text).replace(APOSTROPHES, "'");
  const tokens: string[] = [];
  for (const s of segmenter.segment(normal)) {
    // Han runs are covered by bigrams below; the segmenter's dictionary words would double them.
    if (s.isWordLike && !HAN_ONLY.test(s.segment)) {
      const word = withoutClitic(s.segment);
      if (word.length > 0) tokens.push(`word:${word}`);
    }
  }
  for (const match of normal.matchAll(HAN_RUN)) {
    const chars = Array.from(match[0]);
    if (chars.length === 1) tokens.push(`han1:${chars[0]}`);
    for (let i = 0; i + 1 < chars.length; i++) tokens.push(`han2:${chars[i]}${chars[i + 1]}`);
  }
  return tokens;
}

/** The Porter2 stem term of a `word:` token, or null for a token the stemmer is not for. */
export function stemTerm(token: string): string | null {
  if (!token.startsWith('word:')) return null;
  const word = token.slice(5);
  if (word.length > MAX_STEMMED_LENGTH) return null;
  return ENGLISH_WORD.test(word) ? `stem:${stem(word)}` : null;
}

/**
 * What the search index stores for a text: `tokenize`'s tokens, each English word followed by
 * its stem (`stem:paint` beside `word:painting`). A query word then matches its other forms
 * through the stem, and a document with the query's own form matches both terms, so exact
 * matches still rank first.
 */
export function indexTokens(text: string): string[] {
  const tokens: string[] = [];
  for (const token of tokenize(text)) {
    tokens.push(token);
    const stemmed = stemTerm(token);
    if (stemmed !== null) tokens.push(stemmed);
  }
  return tokens;
}

/** |shared unique tokens| / min(|A|, |B|), or 0 if fewer than 2 are shared (MM-REM-3). */
export function containment(a: readonly string[], b: readonly string[]): number {
  const A = new Set(a);
  const B = new Set(b);
  let shared = 0;
  for (const t of A) if (B.has(t)) shared++;
  if (shared < 2) return 0;
  return shared / Math.min(A.size, B.size);
}
