import type { BlockAnalysis } from './block-analysis.ts';
import { analyseSentence } from './nlp/analysis.ts';
import { claimsOf, claimWords, mayStateClaim } from './nlp/claims.ts';

const MAX_TAGS = 5;
/** Claims are read from the block's first sentences only: tags need a gist, not a census. */
const SENTENCES_READ = 40;
const SENTENCE_MAX = 300;

/**
 * A block that states where someone lives, their diet or who handles what is tagged with the
 * attribute ("location", "diet", "owner"): extraction's timeline search (the block's L0–L2 as
 * query) then finds the earlier statements about it, which carry the same word, so a change is
 * compared with what it replaces. Up to two such tags take the last places.
 */
export function withClaimTags(tags: readonly string[], analysis: BlockAnalysis): string[] {
  const words: string[] = [];
  for (const sentence of analysis.content.slice(0, SENTENCES_READ)) {
    if (sentence.question || sentence.text.length > SENTENCE_MAX) continue;
    if (sentence.role !== 'user' || !mayStateClaim(sentence.text)) continue;
    const speaker = sentence.speaker ?? (sentence.role === 'user' ? 'User' : undefined);
    const claims = claimsOf(analyseSentence(sentence.text), speaker ? { speaker } : {});
    for (const claim of claims) {
      const word = claimWords(claim)[0];
      if (word && !words.includes(word)) words.push(word);
    }
  }
  const extra = words.filter((w) => !tags.includes(w)).slice(0, 2);
  if (extra.length === 0) return [...tags];
  return [...tags.slice(0, MAX_TAGS - extra.length), ...extra];
}
