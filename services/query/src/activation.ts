/** A candidate in fused order (MM-RET-7): its id and its fused score. */
export interface Ranked {
  id: string;
  score: number;
}

export interface ActivationLimits {
  /** Items taken at most. */
  maxItems: number;
  /** Tokens the taken items may cost together. */
  budget: number;
  /** Cards read per call of `read`, in fused order. */
  batch: number;
  /** Tokens of the budget already spent by an earlier section sharing it (default 0). */
  spent?: number;
}

export interface Activation<C> {
  taken: { ranked: Ranked; card: C; cost: number }[];
  /** Candidates not taken: past the limit, over the budget, or without a card. */
  omitted: number;
  /** Tokens of the budget used so far, `spent` included. */
  used: number;
}

/**
 * Walks `fused` best first and takes each candidate whose cost still fits the budget, until
 * `maxItems` are taken; the rest count as omitted. Cards are read lazily, `batch` at a time in
 * fused order, so only the candidates it may still take are read: a space with hundreds of
 * standing events weighs them all but reads the text of a few. The result is what an eager read
 * of every card would give. Sections that share one budget (recall's events, then its graph
 * nodes) are activated one after the other, each starting from what the ones before `spent`.
 */
export async function activate<C>(
  fused: readonly Ranked[],
  read: (ids: string[]) => Promise<ReadonlyMap<string, C>>,
  costOf: (card: C) => number,
  limits: ActivationLimits,
): Promise<Activation<C>> {
  const cards = new Map<string, C | null>();
  const taken: Activation<C>['taken'] = [];
  let omitted = 0;
  let used = limits.spent ?? 0;
  for (const [i, ranked] of fused.entries()) {
    if (taken.length >= limits.maxItems) {
      omitted++;
      continue;
    }
    if (!cards.has(ranked.id)) {
      const next: string[] = [];
      for (let j = i; j < fused.length && next.length < limits.batch; j++) {
        const id = fused[j]!.id;
        if (!cards.has(id) && !next.includes(id)) next.push(id);
      }
      const got = await read(next);
      // A card the read did not return is remembered as missing, so it is not asked for again.
      for (const id of next) cards.set(id, got.get(id) ?? null);
    }
    const card = cards.get(ranked.id) ?? null;
    if (card === null) {
      omitted++;
      continue;
    }
    const cost = costOf(card);
    if (used + cost > limits.budget) {
      omitted++;
      continue;
    }
    used += cost;
    taken.push({ ranked, card, cost });
  }
  return { taken, omitted, used };
}
