import type { BlockAnalysis } from './block-analysis.ts';
import type { RankedTerm } from './ranking.ts';
import { hasHan } from './words.ts';

const MAX_TAGS = 5;
const MIN_TAGS = 2;
/** Below the third tag a term must recur and be at least this share of the top score. */
const MIN_RELATIVE_SCORE = 0.15;
const LAST_RESORT = ['conversation', 'chat'];

/**
 * 2–5 tags: the strongest terms, then (for blocks with too little text) speaker names, tool
 * names, roles and fixed words, so L0 always has at least two.
 */
export function pickTags(terms: readonly RankedTerm[], analysis: BlockAnalysis): string[] {
  const tags: string[] = [];
  const top = terms[0]?.score ?? 0;
  for (const term of terms) {
    if (tags.length >= MAX_TAGS) break;
    const strong = term.count >= 2 && term.score >= top * MIN_RELATIVE_SCORE;
    if (tags.length >= 3 && !strong) continue;
    if (overlapsHan(term.display, tags)) continue;
    tags.push(term.display);
  }
  const padding = [
    ...analysis.speakerNames.map((n) => n.toLowerCase()),
    ...analysis.toolNames.map((n) => n.toLowerCase()),
    ...analysis.roles,
    ...LAST_RESORT,
  ];
  for (const candidate of padding) {
    if (tags.length >= MIN_TAGS) break;
    const tag = Array.from(candidate.trim()).slice(0, 40).join('');
    if (tag !== '' && !tags.some((t) => t.toLowerCase() === tag.toLowerCase())) tags.push(tag);
  }
  return tags;
}

/** 发布 and 下周发布 (or 李明 and 李明说) are one tag twice; keep the stronger one. */
function overlapsHan(candidate: string, tags: readonly string[]): boolean {
  if (!hasHan(candidate)) return tags.includes(candidate);
  return tags.some((t) => hasHan(t) && (t.includes(candidate) || candidate.includes(t)));
}
