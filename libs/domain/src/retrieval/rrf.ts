/** MM-RET-2 reciprocal rank fusion. */
export const RRF_K = 60;

export interface RrfList {
  /** Default 1; a list with weight ≤ 0 is switched off entirely (e.g. agentMemoryWeight 0). */
  weight?: number;
  ids: readonly string[];
}

export interface FusedId {
  id: string;
  score: number;
  /** Best 0-based rank across the contributing lists. */
  bestRank: number;
}

/**
 * Each list adds weight/(k + rank + 1), rank from 0. Only an id's first occurrence in a list
 * counts, so a list with a repeated id cannot vote for it twice. Sorted by score desc, best rank
 * asc, id asc, so equal scores still give a stable, explainable order.
 */
export function rrfFuse(lists: readonly RrfList[], k: number = RRF_K): FusedId[] {
  const fused = new Map<string, FusedId>();
  for (const list of lists) {
    const weight = list.weight ?? 1;
    if (!(weight > 0)) continue;
    const seen = new Set<string>();
    list.ids.forEach((id, rank) => {
      if (seen.has(id)) return;
      seen.add(id);
      const contribution = weight / (k + rank + 1);
      const current = fused.get(id);
      if (current === undefined) fused.set(id, { id, score: contribution, bestRank: rank });
      else {
        current.score += contribution;
        current.bestRank = Math.min(current.bestRank, rank);
      }
    });
  }
  return [...fused.values()].sort(
    (a, b) =>
      b.score - a.score || a.bestRank - b.bestRank || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}
