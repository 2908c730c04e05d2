import { canonicalJson } from '../gate/receipt.ts';
import type { EventType, MemoryEventCard } from '../events/memory-event.ts';
import type { TopicCategory } from '../records/topic-records.ts';
import { TOPIC_CATEGORIES } from '../records/topic-records.ts';
import { sha256Hex } from './sha256.ts';

/**
 * MM-TOP-7: what an event looked like when a topic read it. Fields that move without the event
 * saying anything new (its weight, when it was last touched, when it was formed, the graph's
 * node ids for its participants) are left out, so only a real change invalidates a topic.
 */
export function eventFingerprint(event: MemoryEventCard | Record<string, unknown>): string {
  const copy: Record<string, unknown> = { ...(event as Record<string, unknown>) };
  delete copy.weight;
  delete copy.updatedAt;
  delete copy.formedTurn;
  const temporal = copy.temporal;
  if (temporal !== null && typeof temporal === 'object') {
    const t = { ...(temporal as Record<string, unknown>) };
    delete t.participantNodeIds;
    copy.temporal = t;
  }
  return sha256Hex(canonicalJson(copy));
}

const DECISION_TYPES: ReadonlySet<EventType> = new Set([
  'decision',
  'plan',
  'change',
  'cancellation',
]);
const WORK_TYPES: ReadonlySet<EventType> = new Set([
  'release',
  'task_completed',
  'migration',
  'incident',
]);
const RELATIONSHIP_TYPES: ReadonlySet<EventType> = new Set(['meeting', 'collaboration']);

/** MM-TOP-6: one event's category. */
export function eventCategory(event: {
  criticality: string;
  temporal: { eventType: EventType };
}): TopicCategory {
  if (event.criticality !== 'routine') return 'preferences';
  const type = event.temporal.eventType;
  if (DECISION_TYPES.has(type)) return 'decisions';
  if (WORK_TYPES.has(type)) return 'work';
  if (RELATIONSHIP_TYPES.has(type)) return 'relationships';
  return 'other';
}

/** MM-TOP-6: a topic's category is its members' majority, ties in the order of the categories. */
export function majorityCategory(categories: readonly TopicCategory[]): TopicCategory {
  const counts = new Map<TopicCategory, number>();
  for (const c of categories) counts.set(c, (counts.get(c) ?? 0) + 1);
  let best: TopicCategory = 'other';
  let bestCount = 0;
  for (const c of TOPIC_CATEGORIES) {
    const n = counts.get(c) ?? 0;
    if (n > bestCount) {
      best = c;
      bestCount = n;
    }
  }
  return best;
}

/** A new chapter's id: `topic_` and 12 hex of what the job decided it from, recorded once. */
export function newTopicId(jobId: string, title: string, firstEventId: string): string {
  return `topic_${sha256Hex(`topic:${jobId}\n${normaliseTitle(title)}\n${firstEventId}`).slice(0, 12)}`;
}

/** Titles compared case- and space-insensitively (MM-TOP-2: same-named content shares a section). */
export function normaliseTitle(title: string): string {
  return title.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
}
