import { EVENT_TYPES, Temporal, type EventType } from './memory-event.ts';

const STRING_FIELDS = [
  'mentionedAt',
  'happenedStart',
  'happenedEnd',
  'originalText',
  'threadId',
  'sameEventId',
] as const;
const ARRAY_FIELDS = [
  'participants',
  'supersedesEventIds',
  'conflictsWithEventIds',
  'relatedEventIds',
] as const;

const ALIASES: Record<string, EventType> = {
  发布: 'release',
  released: 'release',
  版本发布: 'release',
  决策: 'decision',
  决定: 'decision',
  取消: 'cancellation',
  canceled: 'cancellation',
  cancelled: 'cancellation',
  计划: 'plan',
  变更: 'change',
  迁移: 'migration',
  会议: 'meeting',
  完成: 'task_completed',
  taskcompleted: 'task_completed',
  事故: 'incident',
  合作: 'collaboration',
};

/** MM-EVT-6: aliases match ignoring case, spaces, `_` and `-`; unknown values become `other`. */
export function normaliseEventType(value: unknown): EventType {
  if (typeof value !== 'string') return 'other';
  const key = value.toLowerCase().replace(/[\s_-]+/g, '');
  for (const t of EVENT_TYPES) if (t.replace(/_/g, '') === key) return t;
  return ALIASES[key] ?? 'other';
}

/**
 * MM-EVT-5: a non-object becomes `{}`; a mistyped string field, or an array with a non-string
 * item, is dropped; enums fall back to their defaults. The event itself is always kept.
 */
export function repairTemporal(raw: unknown): Temporal {
  const source =
    typeof raw === 'object' && raw !== null && !Array.isArray(raw)
      ? (raw as Record<string, unknown>)
      : {};
  const out: Record<string, unknown> = {};
  for (const f of STRING_FIELDS) if (typeof source[f] === 'string') out[f] = source[f];
  for (const f of ARRAY_FIELDS) {
    const v = source[f];
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) out[f] = v;
  }
  for (const f of ['precision', 'basis', 'status'] as const) {
    const candidate = Temporal.shape[f].safeParse(source[f]);
    if (candidate.success) out[f] = candidate.data;
  }
  out.eventType = normaliseEventType(source.eventType);
  return Temporal.parse(out);
}
