import { z } from 'zod';

export const EVENT_TYPES = [
  'decision',
  'release',
  'task_completed',
  'plan',
  'change',
  'cancellation',
  'incident',
  'meeting',
  'collaboration',
  'migration',
  'other',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const Scope = z.enum(['user', 'project', 'session']);
export const Criticality = z.enum(['routine', 'preference', 'identity', 'safety']);
export type Criticality = z.infer<typeof Criticality>;

/** MM-EVT-3: when said, when it happened (or is planned), and how sure we are of it. */
export const Temporal = z.object({
  mentionedAt: z.string().optional(),
  happenedStart: z.string().optional(),
  happenedEnd: z.string().optional(),
  originalText: z.string().optional(),
  precision: z.enum(['instant', 'day', 'month', 'year', 'range', 'unknown']).default('unknown'),
  basis: z.enum(['explicit', 'relative', 'inferred', 'unknown']).default('unknown'),
  status: z.enum(['occurred', 'planned', 'cancelled', 'ongoing', 'unknown']).default('unknown'),
  participants: z.array(z.string()).default([]),
  eventType: z.enum(EVENT_TYPES).default('other'),
  threadId: z.string().optional(),
  sameEventId: z.string().optional(),
  supersedesEventIds: z.array(z.string()).default([]),
  conflictsWithEventIds: z.array(z.string()).default([]),
  relatedEventIds: z.array(z.string()).default([]),
});
export type Temporal = z.infer<typeof Temporal>;

/** A memory event as recorded (MM-EVT-2); weight and status live in the read model. */
export const MemoryEventCard = z.object({
  id: z.string().min(1),
  title: z.string().min(1),
  summary: z.string().min(1),
  tags: z.array(z.string()).max(12),
  quotes: z.array(z.string()).max(12),
  sourceMessageIds: z.array(z.string()).min(1),
  sourceBlockId: z.string().min(1),
  scope: Scope,
  criticality: Criticality,
  temporal: Temporal,
  catalogHints: z.array(z.string()).max(2).default([]),
  extractorVersion: z.number().int().positive().optional(),
  /** Space turn at the source block's end (MM-EVT-17). */
  formedTurn: z.number().int().nonnegative(),
});
export type MemoryEventCard = z.infer<typeof MemoryEventCard>;

/** MM-WGT-2 floors by criticality. */
export const WEIGHT_FLOORS: Record<Criticality, number> = {
  routine: 0,
  preference: 0.3,
  identity: 0.9,
  safety: 1,
};
export const SUPERSEDED_CAP = 0.1;
