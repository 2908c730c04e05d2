import { takeCodePoints } from '../blocks/tokens.ts';

/*
 * MM-GRF-5 cut limits and the small value rules the planner shares. Cuts count code points
 * (MM-GEN-4) so a CJK or emoji name is cut where a reader would expect.
 */

export const GRAPH_LIMITS = {
  ref: 120,
  name: 160,
  relation: 100,
  key: 160,
  value: 1200,
  listItems: 40,
  tagsPerNode: 12,
} as const;

export const DEFAULT_GRAPH_CONFIDENCE = 0.8;

/** Trimmed, then cut; trimming first keeps a padded name from wasting its budget on spaces. */
export function cutText(text: string, max: number): string {
  return takeCodePoints(text.trim(), max).trim();
}

export function clampConfidence(value: number | undefined): number {
  if (value === undefined || !Number.isFinite(value)) return DEFAULT_GRAPH_CONFIDENCE;
  return Math.min(1, Math.max(0, value));
}

/**
 * MM-GRF-6: case-folded, NFKC, without whitespace, `_` and `-`. The root locale keeps the fold the
 * same on every host (a Turkish default locale would otherwise fold `I` to `ı`).
 */
export function normaliseEntityName(name: string): string {
  return name
    .normalize('NFKC')
    .toLocaleLowerCase('und')
    .normalize('NFKC')
    .replace(/[\s_-]+/gu, '');
}

/** A fact value cut to MM-GRF-5, or null when nothing is left to state. */
export function cutFactValue(value: string | readonly string[]): string | string[] | null {
  if (typeof value === 'string') {
    const cut = cutText(value, GRAPH_LIMITS.value);
    return cut === '' ? null : cut;
  }
  const items: string[] = [];
  for (const item of value) {
    const cut = cutText(item, GRAPH_LIMITS.value);
    if (cut !== '' && !items.includes(cut)) items.push(cut);
  }
  const kept = items.slice(0, GRAPH_LIMITS.listItems);
  return kept.length === 0 ? null : kept;
}

/** Identity of a value for "already current" checks; a string never equals a one-item list. */
export function factValueKey(value: string | readonly string[]): string {
  return JSON.stringify(typeof value === 'string' ? { s: value } : { l: value });
}

export function renderFactValue(value: string | readonly string[]): string {
  return typeof value === 'string' ? value : value.join(', ');
}

const ISO_UTC =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]00:?00))?$/u;

/**
 * `YYYY-MM-DDTHH:mm:ss.sssZ`, or null. Only UTC is accepted: without `Date` (MM-GEN-7 keeps the
 * clock out of the domain) an offset cannot be shifted safely, and a wrong instant is worse than
 * falling back to the source time. One canonical form makes string order equal instant order.
 */
export function canonicalUtc(text: string): string | null {
  const m = ISO_UTC.exec(text.trim());
  if (!m) return null;
  const [, y, mo, d, h = '00', mi = '00', s = '00', frac = ''] = m;
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > 31) return null;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return null;
  const ms = `${frac}000`.slice(0, 3);
  return `${y}-${mo}-${d}T${h}:${mi}:${s}.${ms}Z`;
}

/** Orders two instants; values that are not UTC ISO compare as plain strings. */
export function compareInstants(a: string, b: string): number {
  const x = canonicalUtc(a) ?? a;
  const y = canonicalUtc(b) ?? b;
  return x < y ? -1 : x > y ? 1 : 0;
}

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function uniqueStrings(values: Iterable<string>): string[] {
  return [...new Set(values)];
}
