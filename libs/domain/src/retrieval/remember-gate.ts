import { containment, normaliseText } from './tokenize.ts';

/** MM-REM-3/4 thresholds and limits (reference behaviour, tunable). */
export const REINFORCE_CONTAINMENT = 0.85;
export const AMBIGUOUS_CONTAINMENT = 0.35;
export const DEFAULT_REMEMBER_TOP_K = 5;
export const DECIDER_APPLY_CONFIDENCE = 0.85;
export const DECIDER_DEFAULT_CONFIDENCE = 0.5;
export const APPLIED_SUPERSEDED_CAP = 0.1;

/** Exact-duplicate key: normalised title and summary (MM-REM-3). */
export function rememberFingerprint(title: string, summary: string): string {
  return `${normaliseText(title)}\n${normaliseText(summary)}`;
}

export interface RememberCandidate {
  tokens: readonly string[];
  fingerprint: string;
  /** Whether the statement is negated (`isNegated`); absent counts as not negated. */
  negated?: boolean;
}

export interface RememberExisting {
  id: string;
  tokens: readonly string[];
  fingerprint: string;
  negated?: boolean;
}

export type RememberGate =
  | {
      outcome: 'REINFORCED';
      eventId: string;
      exact: boolean;
      containment: number;
      /** Reinforced as agreement with an ambiguous hit (no decider; `agreesWith`). */
      agreement?: true;
    }
  | { outcome: 'AMBIGUOUS'; hits: { id: string; containment: number }[] }
  | { outcome: 'ADDED'; gate: 'clear-new' };

/**
 * MM-REM-3. `live` is every live event of both pools (a duplicate anywhere reinforces);
 * `searchHits` are the search results for the candidate, best first, of which only the top K are
 * considered — the search itself is I/O and happens before. Among several duplicates an exact
 * fingerprint wins, then the highest containment, then the smallest id, so replays agree.
 * A near duplicate must also agree in polarity: "X no longer uses pnpm" shares every content
 * token with "X uses pnpm" and contradicts it, so it is never a reinforcement.
 */
export function rememberGate(input: {
  candidate: RememberCandidate;
  live: readonly RememberExisting[];
  searchHits: readonly Omit<RememberExisting, 'fingerprint'>[];
  topK?: number;
  /**
   * Without a model decider, an ambiguous hit the statement only restates (`agreesWith`) is
   * reinforced instead of marked as a conflict.
   */
  agreementByRule?: boolean;
}): RememberGate {
  const { candidate, live, searchHits } = input;
  let best: { id: string; exact: boolean; containment: number } | undefined;
  for (const event of live) {
    const exact = event.fingerprint === candidate.fingerprint;
    const c = containment(candidate.tokens, event.tokens);
    const samePolarity = (candidate.negated ?? false) === (event.negated ?? false);
    if (!exact && (c < REINFORCE_CONTAINMENT || !samePolarity)) continue;
    const better =
      best === undefined ||
      (exact && !best.exact) ||
      (exact === best.exact &&
        (c > best.containment || (c === best.containment && event.id < best.id)));
    if (better) best = { id: event.id, exact, containment: c };
  }
  if (best !== undefined) {
    return {
      outcome: 'REINFORCED',
      eventId: best.id,
      exact: best.exact,
      containment: best.containment,
    };
  }

  const k = clampTopK(input.topK);
  const top = searchHits
    .slice(0, k)
    .map((hit) => ({ hit, containment: containment(candidate.tokens, hit.tokens) }))
    .filter((h) => h.containment >= AMBIGUOUS_CONTAINMENT);
  if (input.agreementByRule) {
    const agreeing = top
      .filter((h) => agreesWith(candidate, h.hit))
      .sort((a, b) => b.containment - a.containment || (a.hit.id < b.hit.id ? -1 : 1))[0];
    if (agreeing) {
      return {
        outcome: 'REINFORCED',
        eventId: agreeing.hit.id,
        exact: false,
        containment: agreeing.containment,
        agreement: true,
      };
    }
  }
  const hits = top.map((h) => ({ id: h.hit.id, containment: h.containment }));
  return hits.length > 0 ? { outcome: 'AMBIGUOUS', hits } : { outcome: 'ADDED', gate: 'clear-new' };
}

/*
 * Words that restate without adding: a generic verb of having or using, or an affirmation.
 * "Atlas uses pnpm now" adds only "uses" to "We switched Atlas from npm to pnpm", so it agrees;
 * "The monorepo uses yarn" adds "yarn", a value the event does not have, so it may contradict.
 */
const RESTATING = new Set(
  [
    'use uses used using run runs running rely relies depend depends adopt adopts adopted',
    'still currently actually indeed really truly definitely officially already also',
    'yes true correct confirmed confirm confirms right',
    '使用 用 还是 仍然 依然 已经 确实 目前 现在 正在 一直',
  ]
    .join(' ')
    .split(' ')
    .flatMap((w) => (/\p{Script=Han}/u.test(w) ? [`han1:${w}`, `han2:${w}`] : [`word:${w}`])),
);

/**
 * MM-REM-3/4 without a decider: the statement agrees with an ambiguous hit when both have the
 * same polarity and every content token the statement adds to it only restates (`RESTATING`).
 * Anything else it brings — a name, a value, a change word — could contradict the hit, and the
 * pair stays ambiguous (a conflict, linked both ways).
 */
export function agreesWith(
  candidate: Pick<RememberCandidate, 'tokens' | 'negated'>,
  hit: { tokens: readonly string[]; negated?: boolean },
): boolean {
  if ((candidate.negated ?? false) !== (hit.negated ?? false)) return false;
  const known = new Set(hit.tokens);
  // Han bigrams overlap, so one across a known word and a restating one ("目使" in "项目使用")
  // is new only if one of its characters is.
  const knownChars = new Set(
    [...hit.tokens, ...RESTATING]
      .filter((t) => t.startsWith('han'))
      .flatMap((t) => [...t.slice(5)]),
  );
  return candidate.tokens.every(
    (t) =>
      known.has(t) ||
      RESTATING.has(t) ||
      (t.startsWith('han2:') && [...t.slice(5)].every((c) => knownChars.has(c))),
  );
}

/** K is 5 by default, range 1–20; out-of-range input is clamped rather than rejected. */
export function clampTopK(topK: number | undefined): number {
  if (topK === undefined || !Number.isFinite(topK)) return DEFAULT_REMEMBER_TOP_K;
  return Math.min(20, Math.max(1, Math.round(topK)));
}

/** KEEP_BOTH: the decider sees a real contradiction to keep unresolved (a conflict, both written). */
export type DeciderAction = 'IGNORE' | 'MERGE' | 'SUPERSEDE' | 'KEEP_BOTH';

/** What the decider returned, or null when no decider is configured. */
export type DeciderOutcome =
  | { ok: true; action: string; targetIds?: readonly unknown[]; confidence?: unknown }
  | { ok: false; error: string }
  | null;

export type AmbiguousResolution =
  | { outcome: 'IGNORED' }
  | {
      outcome: 'APPLIED';
      action: 'MERGE' | 'SUPERSEDE';
      targetIds: string[];
      confidence: number;
      supersededCap: number;
    }
  | {
      outcome: 'CONFLICT_MARKED';
      reason: 'heuristic-conflict' | 'decider-error' | 'decider-conflict' | 'downgraded';
      downgradedFrom?: 'MERGE' | 'SUPERSEDE';
      confidence?: number;
      /** Linked both ways by the caller: the new event conflicts with these and they with it. */
      conflictsWithEventIds: string[];
    };

/**
 * MM-REM-4. The decider may only name matched ids, so any other target is dropped rather than
 * trusted; an unknown action is treated like a decider error because its intent cannot be applied.
 * Low confidence never silently loses the new memory: it is written and marked as a conflict.
 */
export function resolveAmbiguous(
  matchedIds: readonly string[],
  decision: DeciderOutcome,
): AmbiguousResolution {
  const conflict = {
    outcome: 'CONFLICT_MARKED' as const,
    conflictsWithEventIds: [...matchedIds],
  };
  if (decision === null) return { ...conflict, reason: 'heuristic-conflict' };
  if (!decision.ok) return { ...conflict, reason: 'decider-error' };
  const action = parseAction(decision.action);
  if (action === undefined) return { ...conflict, reason: 'decider-error' };
  const confidence = normaliseConfidence(decision.confidence);
  switch (action) {
    case 'IGNORE':
      return { outcome: 'IGNORED' };
    case 'KEEP_BOTH':
      return { ...conflict, reason: 'decider-conflict', confidence };
    case 'MERGE':
    case 'SUPERSEDE': {
      const matched = new Set(matchedIds);
      const targetIds = [...new Set(decision.targetIds ?? [])].filter(
        (id): id is string => typeof id === 'string' && matched.has(id),
      );
      if (confidence >= DECIDER_APPLY_CONFIDENCE && targetIds.length > 0) {
        return {
          outcome: 'APPLIED',
          action,
          targetIds,
          confidence,
          supersededCap: APPLIED_SUPERSEDED_CAP,
        };
      }
      return { ...conflict, reason: 'downgraded', downgradedFrom: action, confidence };
    }
    default:
      return assertNever(action);
  }
}

function parseAction(action: string): DeciderAction | undefined {
  const upper = action.trim().toUpperCase();
  return upper === 'IGNORE' || upper === 'MERGE' || upper === 'SUPERSEDE' || upper === 'KEEP_BOTH'
    ? upper
    : undefined;
}

/** Missing or unusable confidence counts as 0.5 (MM-REM-4); valid values are clamped to 0–1. */
export function normaliseConfidence(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return DECIDER_DEFAULT_CONFIDENCE;
  return Math.min(1, Math.max(0, value));
}

function assertNever(value: never): never {
  throw new Error(`unhandled decider action ${String(value)}`);
}
