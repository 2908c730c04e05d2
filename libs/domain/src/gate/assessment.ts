import { takeCodePoints } from '../blocks/tokens.ts';

/** MM-GATE-3: the five assessment fields and their allowed values. */
export const VERDICTS = ['sufficient', 'partial', 'wrong'] as const;
export type Verdict = (typeof VERDICTS)[number];

export const NEXT_STRATEGIES = [
  'answer',
  'search_events',
  'expand_event',
  'search_graph',
  'expand_graph_node',
  'search_raw',
  'expand_block',
] as const;
export type NextStrategy = (typeof NEXT_STRATEGIES)[number];

export const MAX_EVIDENCE_REFS = 8;
export const ASSESSMENT_TEXT_LIMIT = 160;
export const DEFAULT_MISSING = 'Direct evidence required to answer the question is still missing.';

export type RefRejectionReason = 'invalid_ref' | 'duplicate' | 'not_in_batch' | 'limit_exceeded';

export interface RejectedEvidenceRef {
  inputIndex: number;
  /** The value exactly as the agent sent it, so the report points at what it wrote. */
  ref: unknown;
  reason: RefRejectionReason;
  detail: string;
}

export interface AssessmentInput {
  verdict?: unknown;
  evidence_refs?: unknown;
  fit?: unknown;
  missing?: unknown;
  next_strategy?: unknown;
}

export interface Assessment {
  verdict: Verdict;
  evidenceRefs: string[];
  rejectedEvidenceRefs: RejectedEvidenceRef[];
  fit: string;
  missing: string;
  nextStrategy: NextStrategy;
}

/**
 * MM-GATE-4/5: the model judges, the system only checks refs and protocol. Every oddity is
 * normalised towards "keep searching" rather than rejected, so a sloppy assessment can never
 * unlock an answer but also never stalls the turn.
 */
export function normaliseAssessment(
  input: AssessmentInput,
  batchRefs: ReadonlySet<string>,
): Assessment {
  const { accepted, rejected } = checkEvidenceRefs(input.evidence_refs, batchRefs);
  const requested = pickEnum(input.verdict, VERDICTS) ?? 'partial';
  const strategy = pickEnum(input.next_strategy, NEXT_STRATEGIES) ?? 'search_events';
  const sufficient = requested === 'sufficient' && accepted.length > 0 && strategy === 'answer';
  const verdict: Verdict = requested === 'sufficient' && !sufficient ? 'partial' : requested;
  const nextStrategy: NextStrategy =
    verdict !== 'sufficient' && strategy === 'answer' ? 'search_events' : strategy;
  const missing = verdict === 'sufficient' ? '' : cleanText(input.missing) || DEFAULT_MISSING;
  return {
    verdict,
    evidenceRefs: accepted,
    rejectedEvidenceRefs: rejected,
    fit: cleanText(input.fit),
    missing,
    nextStrategy,
  };
}

/**
 * MM-GATE-4, checked in input order: invalid → duplicate → not in batch → over the limit.
 * Refs are trimmed, matching adoption (MM-GATE-7), so an accepted ref can be adopted verbatim.
 * A repeat counts as duplicate even when its first occurrence was rejected: the agent sent it once.
 */
export function checkEvidenceRefs(
  refs: unknown,
  batchRefs: ReadonlySet<string>,
): { accepted: string[]; rejected: RejectedEvidenceRef[] } {
  const accepted: string[] = [];
  const rejected: RejectedEvidenceRef[] = [];
  if (refs === undefined || refs === null) return { accepted, rejected };
  if (!Array.isArray(refs)) {
    rejected.push({
      inputIndex: 0,
      ref: refs,
      reason: 'invalid_ref',
      detail: 'evidence_refs must be an array of strings',
    });
    return { accepted, rejected };
  }
  const seen = new Set<string>();
  refs.forEach((raw: unknown, inputIndex) => {
    const reject = (reason: RefRejectionReason, detail: string): void => {
      rejected.push({ inputIndex, ref: raw, reason, detail });
    };
    const ref = typeof raw === 'string' ? raw.trim() : '';
    if (ref === '') return reject('invalid_ref', 'a ref must be a non-empty string');
    if (seen.has(ref)) return reject('duplicate', `${ref} was already given`);
    seen.add(ref);
    if (!batchRefs.has(ref)) return reject('not_in_batch', `${ref} is not a result of this batch`);
    if (accepted.length >= MAX_EVIDENCE_REFS) {
      return reject('limit_exceeded', `at most ${MAX_EVIDENCE_REFS} refs are accepted`);
    }
    accepted.push(ref);
  });
  return { accepted, rejected };
}

/** Case and surrounding space are forgiven; anything else is unknown and falls back. */
function pickEnum<T extends string>(value: unknown, allowed: readonly T[]): T | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim().toLowerCase();
  return allowed.find((option) => option === text);
}

/** MM-GATE-5 texts: whitespace-collapsed, cut (not rejected) to 160 code points (MM-GEN-4). */
export function cleanText(value: unknown): string {
  if (typeof value !== 'string') return '';
  return takeCodePoints(value.replace(/\s+/g, ' ').trim(), ASSESSMENT_TEXT_LIMIT).trim();
}
