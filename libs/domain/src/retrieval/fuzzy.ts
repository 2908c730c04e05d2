import { normaliseText } from './tokenize.ts';

/**
 * MM-RET-2 fuzzy match, used by the participants and eventType filters: equal after
 * normalisation, or either contains the other ("Li" finds "Li Ming", "Li Ming (PM)" finds "Li
 * Ming"). A blank side never matches, because "" is contained in everything.
 */
export function fuzzyMatch(a: string, b: string): boolean {
  const x = normaliseText(a);
  const y = normaliseText(b);
  if (x === '' || y === '') return false;
  return x === y || x.includes(y) || y.includes(x);
}

/** True when `wanted` fuzzily matches any of `values` (one participant, one of the event's fields). */
export function fuzzyMatchAny(wanted: string, values: readonly string[]): boolean {
  return values.some((value) => fuzzyMatch(wanted, value));
}

/** MM-RET-3: every requested participant must match one of the event's participants. */
export function matchesAllParticipants(
  wanted: readonly string[],
  participants: readonly string[],
): boolean {
  return wanted.every((name) => fuzzyMatchAny(name, participants));
}
