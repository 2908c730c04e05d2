import { SUPERSEDED_CAP, WEIGHT_FLOORS, type Criticality } from './memory-event.ts';

export interface WeightInput {
  criticality: Criticality;
  status: 'active' | 'superseded' | 'forgotten' | 'archived';
  mentionCount: number;
  lastAdoptedTurn: number;
  currentTurn: number;
  pinned: boolean;
  /** null = no cap; superseded events get SUPERSEDED_CAP. */
  forcedCap: number | null;
}

/** MM-WGT-1: λ(n) = 0.15 / (1 + 1.5·ln n). */
export const weightLambda = (n: number): number => 0.15 / (1 + 1.5 * Math.log(Math.max(1, n)));

/**
 * MM-WGT-1/2: w = min(max(floor, e^(−λ(n)·t)), cap); pinned → 1; forgotten or archived → 0.
 * The superseded cap applies after the floor, so a superseded identity event weighs 0.1.
 */
export function eventWeight(input: WeightInput): number {
  if (input.status === 'forgotten' || input.status === 'archived') return 0;
  if (input.pinned) return 1;
  const n = Math.max(1, input.mentionCount);
  const t = Math.max(0, input.currentTurn - input.lastAdoptedTurn);
  const decayed = Math.exp(-weightLambda(n) * t);
  const floored = Math.max(WEIGHT_FLOORS[input.criticality], decayed);
  const cap =
    input.status === 'superseded'
      ? Math.min(input.forcedCap ?? SUPERSEDED_CAP, SUPERSEDED_CAP)
      : input.forcedCap;
  return cap === null ? floored : Math.min(floored, cap);
}
