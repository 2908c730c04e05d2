import { claimKey, SINGLE_VALUED, type Claim } from '../nlp/claims.ts';
import type { Criticality } from './cues.ts';

/**
 * Relations read from claims (MM-EVT-9): a new statement about the same attribute of the same
 * subject as a timeline entry agrees with it (same), replaces it (supersede: another value of
 * an attribute that holds one value at a time, or a change said as such), or contradicts it
 * without replacing it (conflict: the same value denied, with no sign of a change).
 */
export type ClaimRelation = 'same' | 'supersede' | 'conflict';

export function compareClaims(
  fresh: readonly Claim[],
  earlier: readonly Claim[],
): ClaimRelation | null {
  let found: ClaimRelation | null = null;
  for (const a of fresh) {
    for (const b of earlier) {
      if (a.attribute !== b.attribute || claimKey(a.subject) !== claimKey(b.subject)) continue;
      const sameValue = claimKey(a.value) === claimKey(b.value);
      let relation: ClaimRelation | null;
      if (sameValue) {
        relation = a.negated === b.negated ? 'same' : a.change ? 'supersede' : 'conflict';
      } else if (SINGLE_VALUED.has(a.attribute) && !a.negated && !b.negated) {
        relation = 'supersede';
      } else if (a.attribute === 'tool' && a.change && !a.negated) {
        relation = 'supersede';
      } else relation = null;
      // A replacement outranks agreement on another attribute; a clash outranks agreement.
      if (relation === 'supersede') return relation;
      if (relation === 'conflict' || (relation === 'same' && found === null)) found = relation;
    }
  }
  return found;
}

/** Diet and tastes are preferences; where one lives and works, and one's role, identity. */
export function claimCriticality(
  base: Criticality,
  claims: readonly Claim[],
  scope: 'user' | 'project' | 'session',
): Criticality {
  if (base === 'safety' || scope === 'session') return base;
  if (claims.some((c) => c.attribute === 'diet' || c.attribute === 'likes')) {
    return base === 'identity' ? base : 'preference';
  }
  const identity = ['location', 'role', 'employer'] as const;
  if (
    scope === 'user' &&
    claims.some((c) => (identity as readonly string[]).includes(c.attribute))
  ) {
    return 'identity';
  }
  return base;
}
