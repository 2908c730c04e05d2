import type { Role, Sentence } from './block-analysis.ts';

export interface RankedTerm {
  key: string;
  /** Most frequent surface form; Latin terms are already lower-case. */
  display: string;
  score: number;
  count: number;
}

/** User words define the topic; assistants repeat and elaborate them at length. */
const ROLE_WEIGHT: Record<Role, number> = { user: 1, assistant: 0.8, tool: 0.3, system: 0 };
/** One long message cannot make a term important on its own. */
const PER_MESSAGE_CAP = 3;
const TOP_TERMS = 12;

interface Stat {
  key: string;
  weight: number;
  count: number;
  proper: number;
  messages: Set<number>;
  first: number;
  surfaces: Map<string, number>;
}

/**
 * Terms by block-level importance: weighted frequency, boosted when several messages use the
 * term and when it is written as a name. Ties keep first-seen order, so ranking is stable.
 */
export function rankTerms(sentences: readonly Sentence[]): RankedTerm[] {
  const stats = new Map<string, Stat>();
  const perMessage = new Map<string, number>();
  for (const s of sentences) {
    for (const hit of s.terms) {
      const stat = stats.get(hit.key) ?? newStat(hit.key, s.order);
      stats.set(hit.key, stat);
      const seen = `${s.messageIndex}\u0000${hit.key}`;
      const n = (perMessage.get(seen) ?? 0) + 1;
      perMessage.set(seen, n);
      stat.count += 1;
      if (n <= PER_MESSAGE_CAP) stat.weight += ROLE_WEIGHT[s.role];
      if (hit.proper) stat.proper += 1;
      stat.messages.add(s.messageIndex);
      stat.surfaces.set(hit.surface, (stat.surfaces.get(hit.surface) ?? 0) + 1);
    }
  }
  return [...stats.values()]
    .map((s) => ({ stat: s, score: score(s) }))
    .sort((a, b) => b.score - a.score || a.stat.first - b.stat.first)
    .map(({ stat, score }) => ({
      key: stat.key,
      display: mostFrequent(stat.surfaces),
      score,
      count: stat.count,
    }));
}

function newStat(key: string, first: number): Stat {
  return { key, weight: 0, count: 0, proper: 0, messages: new Set(), first, surfaces: new Map() };
}

function score(s: Stat): number {
  const spread = 1 + 0.5 * (s.messages.size - 1);
  const properness = s.proper * 2 >= s.count ? 1.5 : s.proper > 0 ? 1.2 : 1;
  return s.weight * spread * properness;
}

function mostFrequent(surfaces: Map<string, number>): string {
  let best = '';
  let bestCount = -1;
  for (const [surface, n] of surfaces) {
    if (n > bestCount) [best, bestCount] = [surface, n];
  }
  return best;
}

/** Relative weights (0–1] of the block's top terms, the yardstick for "central". */
export function topTermWeights(terms: readonly RankedTerm[]): Map<string, number> {
  const top = terms.slice(0, TOP_TERMS);
  const max = top[0]?.score ?? 1;
  return new Map(top.map((t) => [t.key, t.score / max]));
}

/**
 * How much of the block's topic a sentence carries: the weight of the top terms it mentions,
 * damped for length so long sentences do not win by size alone.
 */
export function centrality(sentence: Sentence, weights: ReadonlyMap<string, number>): number {
  let sum = 0;
  for (const key of sentence.keys) sum += weights.get(key) ?? 0;
  return sum / Math.sqrt(Math.max(sentence.terms.length, 6) / 6);
}
