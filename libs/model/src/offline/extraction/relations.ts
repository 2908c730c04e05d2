import type { EventType, TimelineEntry } from '../../extraction.schema.ts';
import type { Claim } from '../nlp/claims.ts';
import { extractTerms } from '../terms.ts';
import { eventClaims } from '../nlp/event-claims.ts';
import { compareClaims } from './claim-relations.ts';
import { hasHan, segmentWords } from '../words.ts';

/**
 * Relations to the timeline the extractor was shown (MM-EVT-9/13/15), by term overlap.
 * Supersede: the new event changes or corrects what an active entry states, and the thing it
 * changes to or from is named in that entry ("switched to pnpm" vs "uses npm"). Same: one
 * happening told again (same type, most terms shared). Related: a clear topical overlap.
 */
export interface PreparedEntry {
  id: string;
  status: TimelineEntry['status'];
  eventType: string;
  keys: string[];
  claims: Claim[];
}

export interface RelationInput {
  text: string;
  keys: readonly string[];
  eventType: EventType;
  claims: readonly Claim[];
}

export interface Relations {
  sameEventId?: string;
  supersedesEventIds: string[];
  conflictsWithEventIds: string[];
  relatedEventIds: string[];
}

const SAME_MIN_SHARED = 2;
const SAME_MIN_CONTAINMENT = 0.6;
const RELATED_MIN_CONTAINMENT = 0.4;
const RELATED_MAX = 3;

const CORRECTION =
  /\b(actually|correction|i meant|no longer|not anymore|anymore|instead|rather than)\b|其实|更正|纠正|不再|改为|改成|换成|改用/iu;
/** What a change is to or from: the word after "to/from/into", or after 改用/换成 in Chinese. */
const CHANGE_OBJECT =
  /\b(?:to|from|into|over to)\s+(?:the\s+|a\s+|an\s+|our\s+|my\s+|their\s+)?([\p{L}\p{N}][\p{L}\p{N}+#-]*)/giu;
const ZH_CHANGE_OBJECT =
  /(?:改用|换成|改成|换到|搬到|迁移到|迁到|转到|从)([\p{Script=Han}A-Za-z0-9.+#-]{2,8})/gu;

export function termKeys(text: string, ignore: ReadonlySet<string>): string[] {
  const keys = extractTerms(segmentWords(text)).map((t) => t.key);
  return [...new Set(keys)].filter((k) => !ignore.has(k));
}

export function prepareTimeline(
  timeline: readonly TimelineEntry[],
  ignore: ReadonlySet<string>,
): PreparedEntry[] {
  return timeline.map((entry) => ({
    id: entry.id,
    status: entry.status,
    eventType: normaliseType(entry.temporal?.eventType),
    keys: termKeys(`${entry.title}\n${entry.summary}`, ignore),
    claims: eventClaims(entry),
  }));
}

/** npm ~ pnpm, python ~ python3, 发布 ~ 发布会: one name inside the other, nearly as long. */
function similar(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  if (hasHan(short)) return short.length >= 2 && long.includes(short);
  return (
    short.length >= 3 &&
    long.length - short.length <= 2 &&
    (long.startsWith(short) || long.endsWith(short))
  );
}

function sharedCount(keys: readonly string[], other: readonly string[]): number {
  return keys.filter((k) => other.some((o) => similar(k, o))).length;
}

export function relate(event: RelationInput, timeline: readonly PreparedEntry[]): Relations {
  const relations: Relations = {
    supersedesEventIds: [],
    conflictsWithEventIds: [],
    relatedEventIds: [],
  };
  const changes =
    event.eventType === 'change' || event.eventType === 'migration' || CORRECTION.test(event.text);
  const objects = changes ? changeObjects(event.text) : [];
  let best = { id: '', score: 0 };
  const seen = new Set<string>();
  for (const entry of timeline) {
    if (seen.has(entry.id) || entry.id === '') continue;
    seen.add(entry.id);
    // What both say about the same subject decides first, with or without a change cue.
    const byClaim = event.claims.length > 0 ? compareClaims(event.claims, entry.claims) : null;
    if (byClaim === 'supersede' && entry.status === 'active') {
      relations.supersedesEventIds.push(entry.id);
      continue;
    }
    if (byClaim === 'conflict') {
      relations.conflictsWithEventIds.push(entry.id);
      continue;
    }
    if (byClaim === 'same') {
      if (best.score < 1) best = { id: entry.id, score: 1 };
      continue;
    }
    const shared = sharedCount(event.keys, entry.keys);
    const containment = shared / Math.max(1, Math.min(event.keys.length, entry.keys.length));
    const namesObject = objects.some((o) => entry.keys.some((k) => similar(o, k)));
    if (
      changes &&
      entry.status === 'active' &&
      (namesObject || (shared >= 2 && containment >= 0.5))
    ) {
      relations.supersedesEventIds.push(entry.id);
      continue;
    }
    const sameType = entry.eventType === event.eventType;
    if (sameType && shared >= SAME_MIN_SHARED && containment >= SAME_MIN_CONTAINMENT) {
      if (containment > best.score) best = { id: entry.id, score: containment };
    } else if (shared >= 2 && containment >= RELATED_MIN_CONTAINMENT) {
      if (relations.relatedEventIds.length < RELATED_MAX) relations.relatedEventIds.push(entry.id);
    }
  }
  if (best.id !== '') relations.sameEventId = best.id;
  return relations;
}

function changeObjects(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(CHANGE_OBJECT)) out.push((m[1] ?? '').toLowerCase());
  for (const m of text.matchAll(ZH_CHANGE_OBJECT)) out.push(m[1] ?? '');
  return out.filter((o) => o.length >= 2);
}

function normaliseType(raw: unknown): string {
  if (typeof raw !== 'string') return 'other';
  const key = raw.toLowerCase().replace(/[\s_-]+/gu, '');
  if (key === 'released' || key === '发布' || key === '版本发布') return 'release';
  if (key === '决策') return 'decision';
  if (key === '取消' || key === 'canceled' || key === 'cancelled') return 'cancellation';
  if (key === 'taskcompleted') return 'task_completed';
  return key;
}
