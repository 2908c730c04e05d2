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

/**
 * Characters per piece the segmenter is given. Iterating its segments of one long string takes
 * time quadratic in the string's length (a 190,000-character message took about half a minute),
 * so a long text is segmented in pieces, each cut just before a space.
 */
export const SEGMENT_PIECE_CHARS = 1_024;

/**
 * The word-like segments of a normalised text, as one pass of the segmenter over the whole text
 * gives them. Pieces end just before a space: a word boundary always falls there (no word rule of
 * UAX #29 joins anything to a following space), and a mark that extends the space stays with it
 * in the next piece. A run without a space is one piece, however long.
 */
export function* wordSegments(normal: string, pieceChars = SEGMENT_PIECE_CHARS): Generator<string> {
  for (let start = 0; start < normal.length;) {
    let end = normal.length;
    if (end - start > pieceChars) {
      const cut = normal.lastIndexOf(' ', start + pieceChars);
      end = cut > start ? cut : normal.indexOf(' ', start + pieceChars);
      if (end < 0) end = normal.length;
    }
    for (const s of segmenter.segment(normal.slice(start, end))) {
      if (s.isWordLike) yield s.segment;
    }
    start = end;
  }
}

export function tokenize(text: string): string[] {
  const steps = tokenizeSteps(text);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * `tokenize`, pausing (`await pause()`) after about every `everyChars` characters: a long text
 * then never holds the event loop for long (ADR 0043). The tokens are `tokenize`'s.
 */
export async function tokenizeAsync(
  text: string,
  pause: () => Promise<void>,
  everyChars = 16 * SEGMENT_PIECE_CHARS,
): Promise<string[]> {
  const steps = tokenizeSteps(text, everyChars);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await pause();
  }
}

/** `tokenize` as steps: yields after about every `everyChars` characters, returns the tokens. */
function* tokenizeSteps(text: string, everyChars = Infinity): Generator<void, string[]> {
  const normal = normaliseText(text).replace(APOSTROPHES, "'");
  const tokens: string[] = [];
  let since = 0;
  for (const segment of wordSegments(normal)) {
    // Han runs are covered by bigrams below; the segmenter's dictionary words would double them.
    if (!HAN_ONLY.test(segment)) {
      const word = withoutClitic(segment);
      if (word.length > 0) tokens.push(`word:${word}`);
    }
    since += segment.length;
    if (since >= everyChars) {
      since = 0;
      yield;
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
  return withStems(tokenize(text));
}

/** `indexTokens`, pausing as `tokenizeAsync` does. */
export async function indexTokensAsync(
  text: string,
  pause: () => Promise<void>,
): Promise<string[]> {
  return withStems(await tokenizeAsync(text, pause));
}

function withStems(words: readonly string[]): string[] {
  const tokens: string[] = [];
  // A long text repeats its words; the stemmer is the costlier part of a repeated one.
  const stems = new Map<string, string | null>();
  for (const token of words) {
    tokens.push(token);
    let stemmed = stems.get(token);
    if (stemmed === undefined) stems.set(token, (stemmed = stemTerm(token)));
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
