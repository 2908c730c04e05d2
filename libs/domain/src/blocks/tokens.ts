/**
 * Length and token arithmetic shared by every layer rule (MM-GEN-4/5). Limits count code points,
 * never UTF-16 units, so an emoji or a CJK character is one unit for both cutting and budgets.
 */

export function codePointLength(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/** ceil(len / 4) per maximal ASCII run, plus 1 per non-ASCII code point. */
export function estimateTokens(text: string): number {
  let tokens = 0;
  let asciiRun = 0;
  for (const char of text) {
    if ((char.codePointAt(0) ?? 0) < 0x80) {
      asciiRun += 1;
      continue;
    }
    tokens += Math.ceil(asciiRun / 4) + 1;
    asciiRun = 0;
  }
  return tokens + Math.ceil(asciiRun / 4);
}

/** The first `max` code points; a surrogate pair is never split. One slice, no copy per char. */
export function takeCodePoints(text: string, max: number): string {
  if (max <= 0) return '';
  // UTF-16 units ≥ code points: a text this short is whole.
  if (text.length <= max) return text;
  let end = 0;
  for (let count = 0; end < text.length && count < max; count++) {
    const unit = text.charCodeAt(end);
    const pair =
      unit >= 0xd800 &&
      unit <= 0xdbff &&
      end + 1 < text.length &&
      text.charCodeAt(end + 1) >= 0xdc00 &&
      text.charCodeAt(end + 1) <= 0xdfff;
    end += pair ? 2 : 1;
  }
  return text.slice(0, end);
}

/** The last `max` code points. */
export function takeLastCodePoints(text: string, max: number): string {
  if (max <= 0) return '';
  const chars = Array.from(text);
  return chars.slice(Math.max(0, chars.length - max)).join('');
}
