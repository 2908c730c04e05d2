import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

/**
 * Budgets are counted with a real BPE tokenizer (o200k_base, the encoding of current OpenAI
 * models; see ADR 0006). Other model families tokenise differently, so budgets are approximate
 * for them, but far closer than a character heuristic.
 */
export const TOKENIZER = 'o200k_base (gpt-tokenizer)';

/** Texts shorter than this are counted each time (cheaper than keeping them). */
const MIN_CACHED_LENGTH = 64;
/** Characters of counted texts kept: block views and open tails recur on every recall. */
const MAX_CACHED_CHARS = 4_000_000;
const counted = new Map<string, number>();
let cachedChars = 0;

/**
 * The token count of `text`. Counting is deterministic, so counts of longer texts are kept
 * (least recently used dropped first): a thread's block views are counted again on every recall,
 * and byte-pair encoding them was a tenth of a recall's CPU time.
 */
export function tokenCount(text: string): number {
  if (text.length < MIN_CACHED_LENGTH || text.length > MAX_CACHED_CHARS) {
    return countTokens(text);
  }
  const hit = counted.get(text);
  if (hit !== undefined) {
    counted.delete(text);
    counted.set(text, hit);
    return hit;
  }
  const n = countTokens(text);
  counted.set(text, n);
  cachedChars += text.length;
  for (const key of counted.keys()) {
    if (cachedChars <= MAX_CACHED_CHARS) break;
    counted.delete(key);
    cachedChars -= key.length;
  }
  return n;
}
