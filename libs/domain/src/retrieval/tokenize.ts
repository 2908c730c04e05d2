/**
 * MM-RET-1: NFKC, lower-case, collapsed whitespace; `word:<seg>` for word-like Intl.Segmenter
 * segments, plus overlapping Han bigrams `han2:xy` per Han run (`han1:x` for a single character).
 * No stemming. Segmenters are created once: construction is the expensive part.
 */
const segmenter = new Intl.Segmenter('und', { granularity: 'word' });
const HAN_RUN = /\p{Script=Han}+/gu;
const HAN_ONLY = /^\p{Script=Han}+$/u;

export function normaliseText(text: string): string {
  return text.normalize('NFKC').toLocaleLowerCase().replace(/\s+/g, ' ').trim();
}

export function tokenize(text: string): string[] {
  const normal = normaliseText(text);
  const tokens: string[] = [];
  for (const s of segmenter.segment(normal)) {
    // Han runs are covered by bigrams below; the segmenter's dictionary words would double them.
    if (s.isWordLike && !HAN_ONLY.test(s.segment)) tokens.push(`word:${s.segment}`);
  }
  for (const match of normal.matchAll(HAN_RUN)) {
    const chars = Array.from(match[0]);
    if (chars.length === 1) tokens.push(`han1:${chars[0]}`);
    for (let i = 0; i + 1 < chars.length; i++) tokens.push(`han2:${chars[i]}${chars[i + 1]}`);
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
