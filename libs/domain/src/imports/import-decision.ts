import { takeCodePoints } from '../blocks/tokens.ts';
import { rememberFingerprint } from '../retrieval/remember-gate.ts';
import { containment, tokenize } from '../retrieval/tokenize.ts';
import type { ImportCandidate } from './external-memory-format.ts';

/** MM-IMP-6 (reference behaviour, tunable). */
export const IMPORT_CONFIRM_BELOW = 0.85;
export const IMPORT_DEFAULT_CONFIDENCE = 0.5;
export const IMPORT_REASON_MAX = 500;
export const DEFAULT_IMPORT_TOP_K = 5;

export const IMPORT_ACTIONS = ['ADD', 'MERGE', 'SUPERSEDE', 'CONFLICT', 'IGNORE'] as const;
export type ImportAction = (typeof IMPORT_ACTIONS)[number];

/** Who decided a candidate: the fingerprint rule, the offline decider, a model, or the user. */
export type ImportDecidedBy = 'fingerprint' | 'offline' | 'model' | 'user';

/** What a decider may propose to write instead of the candidate as it came (a merged card). */
export interface MergedCandidate {
  title: string;
  summary: string;
  tags?: string[];
}

/** A decider's answer before normalisation: anything, as a model may return it. */
export interface RawImportDecision {
  action?: unknown;
  existingEventIds?: unknown;
  mergedCandidate?: unknown;
  reason?: unknown;
  confidence?: unknown;
}

export interface ImportDecision {
  action: ImportAction;
  existingEventIds: string[];
  mergedCandidate: MergedCandidate | null;
  reason: string;
  confidence: number;
  requiresConfirmation: boolean;
}

/** An existing event as the decision sees it: a search hit of the candidate. */
export interface ImportMatch {
  id: string;
  title: string;
  summary: string;
}

export const importFingerprint = rememberFingerprint;

/** K is 5 by default, 1–20 (MM-IMP-6). */
export function clampImportTopK(topK: number | undefined): number {
  if (topK === undefined || !Number.isFinite(topK)) return DEFAULT_IMPORT_TOP_K;
  return Math.min(20, Math.max(1, Math.round(topK)));
}

/**
 * MM-IMP-5: a candidate whose fingerprint (normalised title + summary) equals a live event's in
 * either pool, or an earlier candidate's of the same import, is ignored for certain, without a
 * model. Null: no such duplicate.
 */
export function fingerprintDuplicate(
  fingerprint: string,
  earlier: ReadonlySet<string>,
  live: readonly { id: string; fingerprint: string }[],
): ImportDecision | null {
  const same = live.filter((e) => e.fingerprint === fingerprint).map((e) => e.id);
  if (same.length > 0) {
    return certainIgnore(same.sort().slice(0, 1), 'the same memory already exists');
  }
  if (earlier.has(fingerprint)) {
    return certainIgnore([], 'an earlier candidate of this import is the same memory');
  }
  return null;
}

const certainIgnore = (ids: string[], reason: string): ImportDecision => ({
  action: 'IGNORE',
  existingEventIds: ids,
  mergedCandidate: null,
  reason,
  confidence: 1,
  requiresConfirmation: false,
});

/**
 * MM-IMP-6: what any decider said, made safe. Ids outside the candidate's top K are dropped; an
 * unknown action is IGNORE; MERGE, SUPERSEDE or CONFLICT left without a target is IGNORE at 0.5
 * ("safely downgraded"); a missing confidence is 0.5; the reason is cut to 500. Low confidence,
 * or a document that had to be recovered from malformed JSON, needs the user's confirmation.
 */
export function normaliseImportDecision(
  raw: RawImportDecision,
  topKIds: readonly string[],
  recovered: boolean,
): ImportDecision {
  const allowed = new Set(topKIds);
  const ids = Array.isArray(raw.existingEventIds)
    ? [
        ...new Set(
          raw.existingEventIds.filter(
            (id): id is string => typeof id === 'string' && allowed.has(id),
          ),
        ),
      ]
    : [];
  const action = parseAction(raw.action);
  let confidence = confidenceOf(raw.confidence);
  let reason = typeof raw.reason === 'string' ? raw.reason.trim() : '';
  let decided: ImportAction = action ?? 'IGNORE';
  if (action === undefined) reason = reason || 'unknown action';
  const needsTarget = decided === 'MERGE' || decided === 'SUPERSEDE' || decided === 'CONFLICT';
  if (needsTarget && ids.length === 0) {
    reason = `safely downgraded: ${decided} named no existing memory among the matches`;
    decided = 'IGNORE';
    confidence = IMPORT_DEFAULT_CONFIDENCE;
  }
  return {
    action: decided,
    existingEventIds: decided === 'ADD' ? [] : ids,
    mergedCandidate: decided === 'IGNORE' ? null : mergedOf(raw.mergedCandidate),
    reason: takeCodePoints(reason, IMPORT_REASON_MAX),
    confidence,
    requiresConfirmation: recovered || confidence < IMPORT_CONFIRM_BELOW,
  };
}

function parseAction(value: unknown): ImportAction | undefined {
  if (typeof value !== 'string') return undefined;
  const upper = value.trim().toUpperCase();
  return (IMPORT_ACTIONS as readonly string[]).includes(upper)
    ? (upper as ImportAction)
    : undefined;
}

function confidenceOf(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return IMPORT_DEFAULT_CONFIDENCE;
  return Math.min(1, Math.max(0, value));
}

/** A merged card counts only with a title and a summary; it is cut to the candidate's limits. */
function mergedOf(value: unknown): MergedCandidate | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  const title = typeof v.title === 'string' ? v.title.trim() : '';
  const summary = typeof v.summary === 'string' ? v.summary.trim() : '';
  if (title === '' || summary === '') return null;
  const tags = Array.isArray(v.tags)
    ? v.tags
        .filter((t): t is string => typeof t === 'string' && t.trim() !== '')
        .slice(0, 12)
        .map((t) => takeCodePoints(t.trim(), 80))
    : undefined;
  return {
    title: takeCodePoints(title, 160),
    summary: takeCodePoints(summary, 2000),
    ...(tags ? { tags } : {}),
  };
}

/** Containment at which an existing memory says the same (as remember's duplicate rule). */
const SAME_CONTAINMENT = 0.85;
/** Containment at which an existing memory is about the same thing. */
const RELATED_CONTAINMENT = 0.35;
/** Words that say a state changed: the new memory replaces what it overlaps. */
const CHANGE_CUE =
  /\b(now|switched|switch(?:ed)? to|changed|no longer|instead|replaced|moved to|migrated|updated|corrected|anymore|from now on)\b|改用|改为|换成|不再|现在|已经改|更新为|取代/iu;

/**
 * The offline decider: no model, same answer every time. A candidate nearly the same as an
 * existing memory (containment ≥ 0.85) is ignored; one that overlaps nothing is added; one that
 * overlaps in part is a change that supersedes the overlapped memories when it says something
 * changed, and an unresolved conflict otherwise. Only the first two are sure enough to apply
 * without confirmation; the user settles the rest (MM-IMP-7).
 */
export function offlineImportDecision(
  candidate: Pick<ImportCandidate, 'title' | 'summary' | 'tags'>,
  matches: readonly ImportMatch[],
): RawImportDecision {
  const tokens = tokenize(`${candidate.title}\n${candidate.summary}`);
  const scored = matches
    .map((m) => ({ id: m.id, c: containment(tokens, tokenize(`${m.title}\n${m.summary}`)) }))
    .sort((a, b) => b.c - a.c || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const best = scored[0];
  if (best && best.c >= SAME_CONTAINMENT) {
    return {
      action: 'IGNORE',
      existingEventIds: [best.id],
      confidence: 0.9,
      reason: `nearly the same as an existing memory (overlap ${best.c.toFixed(2)})`,
    };
  }
  const related = scored.filter((s) => s.c >= RELATED_CONTAINMENT).map((s) => s.id);
  if (related.length === 0) {
    return {
      action: 'ADD',
      confidence: 0.9,
      reason: 'no existing memory is about the same thing',
    };
  }
  if (CHANGE_CUE.test(`${candidate.title}\n${candidate.summary}`)) {
    return {
      action: 'SUPERSEDE',
      existingEventIds: related,
      confidence: 0.6,
      reason: 'overlaps existing memories and says something changed',
    };
  }
  return {
    action: 'CONFLICT',
    existingEventIds: related,
    confidence: 0.5,
    reason: 'overlaps existing memories in part; which one holds is not clear',
  };
}
