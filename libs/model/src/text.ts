/**
 * Code-point-aware string helpers. Lengths and cuts count code points, not UTF-16 units
 * (MM-GEN-4), so a cut never splits a surrogate pair and `😀中文` is 3 long.
 */

export function isBlank(text: string): boolean {
  return text.trim() === '';
}

export function codePointLength(text: string): number {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
}

/** The first `max` code points of `text`; stops early so long inputs cost O(max). */
export function cutCodePoints(text: string, max: number): string {
  if (text.length <= max) return text;
  let taken = 0;
  let end = 0;
  for (const ch of text) {
    if (taken === max) return text.slice(0, end);
    taken += 1;
    end += ch.length;
  }
  return text;
}

/** The last `max` code points of `text`. */
export function tailCodePoints(text: string, max: number): string {
  if (max <= 0) return '';
  const points = Array.from(text);
  return points.length <= max ? text : points.slice(points.length - max).join('');
}

export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/gu, ' ').trim();
}

const CLAUSE_BREAK = /[，,；;：:、]/u;
/** Cutting before a conjunction keeps a whole clause ("… yesterday" not "… and it was so"). */
const CONJUNCTION = /\s(?:and|but|because|which|while|although|or|when|where|since)\s/giu;
const TRAILING_JOINERS = /[\s，,；;：:、\-–—(（[]+$/u;

/**
 * Cut to at most `max` code points at the most natural place: a clause mark in the back half,
 * else the last space in the back 60 % (Latin words stay whole), else a hard cut (Han text has
 * no spaces). The result is always a prefix of `text`, so extractive callers stay extractive.
 */
export function cutAtBoundary(text: string, max: number): string {
  const prefix = cutCodePoints(text, max);
  if (prefix.length === text.length) return text;
  const points = Array.from(prefix);
  let clause = -1;
  let space = -1;
  for (let i = points.length - 1; i > 0; i -= 1) {
    const ch = points[i] ?? '';
    if (clause < 0 && i >= max * 0.5 && CLAUSE_BREAK.test(ch)) clause = i;
    if (space < 0 && i >= max * 0.4 && /\s/u.test(ch)) space = i;
  }
  // The character right after the prefix decides whether the hard cut already ends a word.
  const next = Array.from(text.slice(prefix.length, prefix.length + 2))[0] ?? '';
  const endsWord = /\s/u.test(next) || /\p{Script=Han}/u.test(points[points.length - 1] ?? '');
  const conjunction = lastConjunction(points, max);
  const at =
    clause > 0
      ? clause
      : endsWord
        ? points.length
        : conjunction > 0
          ? conjunction
          : space > 0
            ? space
            : points.length;
  const cut = points.slice(0, at).join('').replace(TRAILING_JOINERS, '');
  return cut === '' ? prefix.trimEnd() : cut;
}

/** Code-point index of the last conjunction in the back 60 % of `points`, or -1. */
function lastConjunction(points: readonly string[], max: number): number {
  const text = points.join('');
  let at = -1;
  for (const match of text.matchAll(CONJUNCTION)) {
    const index = codePointLength(text.slice(0, match.index));
    if (index >= max * 0.4) at = index;
  }
  return at;
}
