/*
 * MM-BLK-17/18: fading follows conversation progress, never the clock (MM-GEN-2). Age is how many
 * ready blocks of the same thread were added after the anchor; open-tail turns and pending
 * blocks add nothing because the caller only counts ready positions.
 */

export const DEFAULT_DECAY_LAMBDA = 0.3;
export const MAX_BLOCK_LEVEL = 5;

export function validateDecayLambda(lambda: number): void {
  if (!Number.isFinite(lambda) || lambda < 0) {
    throw new Error(`decay lambda must be a finite number >= 0, got ${String(lambda)}`);
  }
}

export function decayWeight(age: number, lambda: number): number {
  return Math.exp(-lambda * age);
}

/** How many levels below its anchor a block with this weight sits (MM-BLK-18). */
export function levelDrop(weight: number): number {
  if (weight > 0.7) return 0;
  if (weight > 0.5) return 1;
  if (weight > 0.3) return 2;
  if (weight > 0.15) return 3;
  if (weight > 0.08) return 4;
  return 5;
}

export interface DecayInput {
  anchorLevel: number;
  anchorPosition: number;
  newestReadyPosition: number;
  lambda: number;
}

export function decayedLevel(input: DecayInput): { age: number; weight: number; level: number } {
  validateDecayLambda(input.lambda);
  const age = Math.max(0, input.newestReadyPosition - input.anchorPosition);
  const weight = decayWeight(age, input.lambda);
  const level = Math.min(MAX_BLOCK_LEVEL, Math.max(0, input.anchorLevel - levelDrop(weight)));
  return { age, weight, level };
}
