import type { Sentence } from './block-analysis.ts';

/** Same words in the same order once case and punctuation are ignored. */
export function normalisedText(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}

/**
 * Two sentences say the same thing if one contains the other or their term sets mostly
 * overlap; repeated statements ("we'll use pnpm" twice) should appear once in L1/L2.
 */
export function isNearDuplicate(a: Sentence, b: Sentence): boolean {
  const x = normalisedText(a.text);
  const y = normalisedText(b.text);
  if (x === y || (x.length > 0 && y.length > 0 && (x.includes(y) || y.includes(x)))) return true;
  if (a.keys.size < 3 || b.keys.size < 3) return false;
  let shared = 0;
  for (const key of a.keys) if (b.keys.has(key)) shared += 1;
  return shared / (a.keys.size + b.keys.size - shared) >= 0.7;
}
