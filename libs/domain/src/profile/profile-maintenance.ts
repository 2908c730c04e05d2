import { codePointLength } from '../blocks/tokens.ts';
import { isNegated, rememberTokens } from '../retrieval/remember-tokens.ts';
import { containment, normaliseText, tokenize } from '../retrieval/tokenize.ts';
import {
  LONG_PROFILE_FIELDS,
  PROFILE_FIELD_LIMITS,
  profileLength,
  type ProfileField,
} from './profile-fields.ts';
import { utcIso, utcMillis } from './instants.ts';
import type { ProfileState } from './profile-state.ts';

/** MM-PRO-6 constants (reference behaviour, tunable). */
export const MAINTENANCE_PERIOD_MS = 24 * 3_600_000;
export const MAINTENANCE_TOTAL_TRIGGER = 4800;
export const MAINTENANCE_FIELD_TRIGGER = 0.8;
export const MAINTENANCE_BACKOFF_STEP_MS = 5 * 60_000;
export const MAINTENANCE_FAILURES_BEFORE_DAY = 3;

/**
 * The earliest instant maintenance is due (MM-PRO-6), or null while it never will be without a
 * change. A profile with nothing in its long fields has nothing to compress. Size triggers
 * (total ≥ 4,800, or a long field ≥ 80 % of its limit) count only once the content changed after
 * the last success, so a profile that cannot shrink further is not compressed again and again;
 * the 24 h period runs from the first non-empty write or the last success. After a failure
 * nothing is due before its recorded retry time. A pure function of the folded state, so the
 * read model can keep it and a job finds due profiles with one indexed comparison.
 */
export function maintenanceDueAt(state: ProfileState): string | null {
  const { values, maintenance: m } = state;
  if (LONG_PROFILE_FIELDS.every((f) => values[f] === '')) return null;
  const large =
    profileLength(values) >= MAINTENANCE_TOTAL_TRIGGER ||
    LONG_PROFILE_FIELDS.some(
      (f) => codePointLength(values[f]) >= MAINTENANCE_FIELD_TRIGGER * PROFILE_FIELD_LIMITS[f],
    );
  const bySize = state.revision > m.maintainedRevision && large ? state.updatedAt : null;
  const since = utcMillis(m.lastSuccessAt ?? m.firstNonEmptyAt ?? '');
  const byPeriod = since === null ? null : utcIso(since + MAINTENANCE_PERIOD_MS);
  const due = [bySize, byPeriod].filter((t): t is string => t !== null).sort()[0] ?? null;
  if (due === null) return null;
  return m.nextAttemptAt !== null && m.nextAttemptAt > due ? m.nextAttemptAt : due;
}

/** Whether maintenance is due at `nowMs` (see `maintenanceDueAt`). */
export function maintenanceDue(state: ProfileState, nowMs: number): boolean {
  const at = maintenanceDueAt(state);
  const atMs = at === null ? null : utcMillis(at);
  return atMs !== null && nowMs >= atMs;
}

/** After failure number `failures` (1, 2, …): 5 min × count, or 24 h from the third on. */
export function maintenanceRetryAt(failures: number, nowMs: number): string {
  const wait =
    failures >= MAINTENANCE_FAILURES_BEFORE_DAY
      ? MAINTENANCE_PERIOD_MS
      : MAINTENANCE_BACKOFF_STEP_MS * Math.max(1, failures);
  return utcIso(nowMs + wait);
}

export type CompressionCheck =
  { ok: true; changed: { field: ProfileField; value: string }[] } | { ok: false; error: string };

const NUMBER = /\d/u;

/**
 * A compression result is kept only if it obeys MM-PRO-6: long fields only, each within its
 * limit and no longer than before, and it adds no facts. "No facts" is checked on what facts are
 * made of: every number, every capitalised word and every Han bigram of the new text must occur
 * in the field's old text; other new words (a rephrasing) are allowed up to a quarter of them.
 */
export function checkCompression(
  before: Record<ProfileField, string>,
  proposed: readonly { field: ProfileField; value: string }[],
): CompressionCheck {
  const changed: { field: ProfileField; value: string }[] = [];
  const seen = new Set<ProfileField>();
  for (const { field, value } of proposed) {
    if (!LONG_PROFILE_FIELDS.includes(field))
      return { ok: false, error: `${field} is not compressed` };
    if (seen.has(field)) return { ok: false, error: `${field} appears twice` };
    seen.add(field);
    const old = before[field];
    const next = value.replace(/\r\n?/g, '\n').trim();
    if (next === old) continue;
    if (old === '') return { ok: false, error: `${field} was empty` };
    if (next === '') return { ok: false, error: `${field} would be emptied` };
    if (codePointLength(next) > codePointLength(old)) {
      return { ok: false, error: `${field} would grow` };
    }
    const oldTokens = new Set(tokenize(old));
    const novel = tokenize(next).filter((t) => !oldTokens.has(t));
    const factual = novel.filter((t) => !t.startsWith('word:') || NUMBER.test(t));
    const capitalised = next
      .split(/(?<=[.!?]\s+|\n)/u)
      .flatMap((sentence) => sentence.trim().split(/\s+/).slice(1))
      .filter(
        (w) =>
          /^\p{Lu}/u.test(w) && !oldTokens.has(`word:${normaliseText(w).replace(/\W+$/u, '')}`),
      );
    if (factual.length > 0 || capitalised.length > 0) {
      return { ok: false, error: `${field} adds content that is not in the profile` };
    }
    if (novel.length > tokenize(next).length / 4) {
      return { ok: false, error: `${field} rewords too much to check that it adds nothing` };
    }
    if (turnsAround(old, next)) {
      return { ok: false, error: `${field} turns a statement into its opposite` };
    }
    changed.push({ field, value: next });
  }
  return { ok: true, changed };
}

/** How alike a new sentence and an old one must be to count as the same statement. */
const SAME_STATEMENT = 0.85;

function statements(text: string) {
  return text
    .split(/(?<=[.!?。！？；;])\s*|\n/u)
    .filter((s) => s.trim() !== '')
    .map((s) => ({ tokens: rememberTokens(s), negated: isNegated(s) }));
}

/**
 * Whether the new text says the opposite of the old: a sentence of it matches an old one of the
 * other polarity ("Use emojis." from "Never use emojis.") and none of its own. Words dropped by
 * a compression are not checked otherwise, and a dropped "not" adds the opposite fact.
 */
function turnsAround(before: string, after: string): boolean {
  const old = statements(before);
  return statements(after).some((s) => {
    const alike = old.filter((o) => containment(s.tokens, o.tokens) >= SAME_STATEMENT);
    return alike.length > 0 && alike.every((o) => o.negated !== s.negated);
  });
}

/**
 * The offline provider's maintenance: extractive and conservative. It cannot paraphrase without
 * risking new facts, so it only removes what is provably redundant — a sentence or line that
 * repeats an earlier one of the same field (compared normalised) — and collapses runs of spaces
 * and blank lines. A profile without repeats stays as it is.
 */
export function compressExtractively(value: string): string {
  const seen = new Set<string>();
  const lines = value.split('\n').map((line) => {
    const kept = line.split(/(?<=[.!?。！？；;])\s*/u).filter((sentence) => {
      const key = normaliseText(sentence).replace(/[.!?。！？；;,，\s]+$/u, '');
      if (key === '') return sentence.trim() === '';
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    return kept
      .join(' ')
      .replace(/[ \t]+/g, ' ')
      .trim();
  });
  return lines
    .filter((line, i) => line !== '' || (i > 0 && lines[i - 1] !== ''))
    .join('\n')
    .trim();
}
