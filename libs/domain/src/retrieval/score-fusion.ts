import type { FusedId } from './rrf.ts';

/**
 * Score fusion (issue 36, ADR 0040): lists of scored hits, each hit standing for one or more
 * units (an event for the turns it cites, a raw hit for its message), fused per unit by the sum
 * of each list's max-normalised scores (CombSUM, Fox & Shaw 1994, with the theoretical min-max
 * normalisation of Bruch et al. 2023: BM25's floor is 0, its observed top is the list's first
 * score). Unlike reciprocal ranks, a score keeps how far a hit stands above the next, and every
 * list's best hit counts 1 × its weight, so a strong hit of any list can outrank a weak hit of
 * another: there is no cap on what a second list can add.
 *
 * A hit's score is shared among the units it stands for: a graph node citing twelve turns says
 * that some of them answer, not that each does as much as a message that matched on its own. A
 * unit's contribution from a list is the largest share any of its hits gives it (a list votes
 * for a unit once). With `neighbours`, each contribution also gives `neighbourShare` of itself to each
 * of the unit's neighbours: the answer to a question often sits in the message after the one
 * that matched, or before it.
 */
export interface ScoredHit {
  /** What the hit stands for, in the order the hit gives them. */
  units: readonly string[];
  /** The list's own relevance score, > 0, best first. */
  score: number;
}

export interface ScoredList {
  /** Default 1; a list with weight ≤ 0 is switched off. */
  weight?: number;
  hits: readonly ScoredHit[];
}

export interface ScoreFusionOptions {
  /** Hits of each list looked at (default: all). */
  depth?: number;
  /** A unit's neighbours (default none). */
  neighbours?: (unit: string) => readonly string[];
  /** What a neighbour gets of a unit's contribution (default 0.1). */
  neighbourShare?: number;
}

export const NEIGHBOUR_SHARE = 0.1;

/**
 * Units by fused score, best first; equal scores by the best rank a list gave them (a neighbour
 * vote ranks after every list's own hits), then unit id. `bestRank` is that rank.
 */
export function fuseScores(
  lists: readonly ScoredList[],
  options: ScoreFusionOptions = {},
): FusedId[] {
  const share = options.neighbourShare ?? NEIGHBOUR_SHARE;
  const fused = new Map<string, FusedId>();
  const add = (unit: string, score: number, rank: number) => {
    const current = fused.get(unit);
    if (current === undefined) fused.set(unit, { id: unit, score, bestRank: rank });
    else {
      current.score += score;
      current.bestRank = Math.min(current.bestRank, rank);
    }
  };
  for (const list of lists) {
    const weight = list.weight ?? 1;
    if (!(weight > 0)) continue;
    const hits = list.hits.slice(0, options.depth ?? list.hits.length);
    const top = hits.reduce((max, h) => Math.max(max, h.score), 0);
    if (!(top > 0)) continue;
    // Each unit's best contribution in this list, and the rank of the hit that gave it.
    const best = new Map<string, { contribution: number; rank: number }>();
    hits.forEach((hit, rank) => {
      if (!(hit.score > 0)) return;
      const units = [...new Set(hit.units)];
      const contribution = (weight * hit.score) / top / units.length;
      for (const unit of units) {
        const current = best.get(unit);
        if (current === undefined || contribution > current.contribution) {
          best.set(unit, { contribution, rank });
        }
      }
    });
    for (const [unit, { contribution, rank }] of best) {
      add(unit, contribution, rank);
      if (!options.neighbours || !(share > 0)) continue;
      for (const neighbour of options.neighbours(unit)) {
        add(neighbour, share * contribution, Number.MAX_SAFE_INTEGER);
      }
    }
  }
  return [...fused.values()].sort(
    (a, b) =>
      b.score - a.score || a.bestRank - b.bestRank || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}
