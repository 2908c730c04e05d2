import { compareInstants } from './graph-limits.ts';

/*
 * MM-GRF-7 supersession for one group: the facts of one key on one node, or the edges of one
 * relation from one node. Facts and edges share the rule, so they share this code; only the
 * "what counts as the same claim" key (value, or target) and disputes differ.
 *
 * Claims are applied in time order, so a batch that back-fills an older event (MM-GRF-10 orders
 * back-fill by score, not time) files that claim as history instead of overturning a newer one.
 */

export type TimelineRef = { existing: string } | { claim: number };

export interface TimelineRecord {
  id: string;
  sameAs: string;
  validFrom: string | null;
  disputed: boolean;
  /** Every source is known and none is active: current by status, yet shown nowhere (MM-GRF-8). */
  stale: boolean;
}

export interface TimelineClaim {
  sameAs: string;
  validFrom: string | null;
  confidence: number;
  hasActiveSource: boolean;
  label: string;
}

export type TimelineStep =
  | { kind: 'add'; claim: number }
  | { kind: 'supersede'; target: TimelineRef; validTo: string | null; by: TimelineRef }
  | { kind: 'dispute'; target: TimelineRef };

/** Below this, a conflicting claim disputes the current value instead of replacing it. */
export const DISPUTE_BELOW_CONFIDENCE = 0.5;

interface Current {
  ref: TimelineRef;
  sameAs: string;
  validFrom: string | null;
  disputed: boolean;
  stale: boolean;
}

const before = (a: string | null, b: string | null) =>
  a !== null && (b === null ? false : compareInstants(a, b) < 0);

export function planTimeline(
  records: readonly TimelineRecord[],
  claims: readonly TimelineClaim[],
  options: { disputes: boolean },
): { steps: TimelineStep[]; warnings: string[] } {
  const order = claims
    .map((_, index) => index)
    .sort((a, b) => {
      const x = claims[a]?.validFrom ?? null;
      const y = claims[b]?.validFrom ?? null;
      if (before(x, y) || (x === null && y !== null)) return -1;
      if (before(y, x) || (y === null && x !== null)) return 1;
      return a - b;
    });
  const excluded = new Set<number>();
  const dropped: string[] = [];
  // MM-GRF-4 drops current facts without an active source. Whether a claim ends current depends
  // on the claims after it, so simulate, drop the offenders, and simulate again until none is left.
  for (;;) {
    const run = simulate(records, claims, order, excluded, options);
    const offenders = run.current.filter(
      (index) => !(claims[index]?.hasActiveSource ?? true) && !excluded.has(index),
    );
    if (offenders.length === 0)
      return { steps: run.steps, warnings: [...dropped, ...run.warnings] };
    for (const index of offenders) {
      excluded.add(index);
      dropped.push(`${claims[index]?.label ?? 'claim'} dropped: no active source`);
    }
  }
}

function simulate(
  records: readonly TimelineRecord[],
  claims: readonly TimelineClaim[],
  order: readonly number[],
  excluded: ReadonlySet<number>,
  options: { disputes: boolean },
): { steps: TimelineStep[]; warnings: string[]; current: number[] } {
  const steps: TimelineStep[] = [];
  const warnings: string[] = [];
  let current: Current[] = records.map((record) => ({
    ref: { existing: record.id },
    sameAs: record.sameAs,
    validFrom: record.validFrom,
    disputed: record.disputed,
    stale: record.stale,
  }));
  for (const index of order) {
    const claim = claims[index];
    if (!claim || excluded.has(index)) continue;
    const ref: TimelineRef = { claim: index };
    // Already current: recording it again would only duplicate the record.
    if (current.some((c) => c.sameAs === claim.sameAs && !c.stale)) continue;
    const newer = current.reduce<Current | undefined>(
      (best, c) =>
        before(claim.validFrom, c.validFrom) && (!best || before(c.validFrom, best.validFrom))
          ? c
          : best,
      undefined,
    );
    if (newer) {
      steps.push({ kind: 'add', claim: index });
      steps.push({ kind: 'supersede', target: ref, validTo: newer.validFrom, by: newer.ref });
      continue;
    }
    if (
      options.disputes &&
      claim.confidence < DISPUTE_BELOW_CONFIDENCE &&
      current.some((c) => c.sameAs !== claim.sameAs)
    ) {
      if (!claim.hasActiveSource) {
        warnings.push(`${claim.label} dropped: no active source`);
        continue;
      }
      // A weak contradiction is not enough to replace a value, but enough to flag it (MM-GRF-7).
      for (const c of current) {
        if (c.disputed) continue;
        steps.push({ kind: 'dispute', target: c.ref });
        c.disputed = true;
      }
      warnings.push(`${claim.label} has confidence ${claim.confidence}: current value disputed`);
      continue;
    }
    steps.push({ kind: 'add', claim: index });
    for (const c of current) {
      steps.push({ kind: 'supersede', target: c.ref, validTo: claim.validFrom, by: ref });
    }
    current = [
      { ref, sameAs: claim.sameAs, validFrom: claim.validFrom, disputed: false, stale: false },
    ];
  }
  const currentClaims = current.flatMap((c) => ('claim' in c.ref ? [c.ref.claim] : []));
  return { steps, warnings, current: currentClaims };
}
