import { z } from 'zod';

/**
 * Memory-event extraction output (MM-EVT-2/3/6/7/8/9). The model proposes; the consolidator
 * admits (MM-EVT-17) and records the admitted events. Limits here are "cut" limits (MM-GEN-4):
 * over-long text is shortened, never a reason to fail a job; wrong types fail validation.
 */
// One list of event types for the whole system (MM-EVT-6); the domain owns it.
export { EVENT_TYPES, type EventType } from '@stratagate/domain';

export const SCOPES = ['user', 'project', 'session'] as const;
export const CRITICALITIES = ['routine', 'preference', 'identity', 'safety'] as const;
export const PRECISIONS = ['instant', 'day', 'month', 'year', 'range', 'unknown'] as const;
export const BASES = ['explicit', 'relative', 'inferred', 'unknown'] as const;
export const TEMPORAL_STATUSES = [
  'occurred',
  'planned',
  'cancelled',
  'ongoing',
  'unknown',
] as const;

export const ExtractedTemporal = z.object({
  /** When it was said: ISO-8601 (the source message's time). */
  mentionedAt: z.string().optional(),
  /** When it happened or is planned to: ISO-8601 date or date-time. */
  happenedStart: z.string().optional(),
  happenedEnd: z.string().optional(),
  /** The words that carried the time ("last week", "去年夏天"), kept verbatim. */
  originalText: z.string().optional(),
  precision: z.enum(PRECISIONS).default('unknown'),
  basis: z.enum(BASES).default('unknown'),
  status: z.enum(TEMPORAL_STATUSES).default('unknown'),
  participants: z.array(z.string()).default([]),
  eventType: z.string().default('other'),
});
export type ExtractedTemporal = z.infer<typeof ExtractedTemporal>;

export const ExtractedRelations = z.object({
  sameEventId: z.string().optional(),
  supersedesEventIds: z.array(z.string()).default([]),
  conflictsWithEventIds: z.array(z.string()).default([]),
  relatedEventIds: z.array(z.string()).default([]),
});

export const ExtractedEvent = z.object({
  title: z.string().min(1),
  summary: z.string().min(1),
  tags: z.array(z.string()).default([]),
  quotes: z.array(z.string()).default([]),
  /** Ids of the target block's messages that support the event (filtered on admission). */
  sourceMessageIds: z.array(z.string()).default([]),
  scope: z.enum(SCOPES),
  criticality: z.enum(CRITICALITIES).default('routine'),
  temporal: ExtractedTemporal,
  relations: ExtractedRelations.default({
    supersedesEventIds: [],
    conflictsWithEventIds: [],
    relatedEventIds: [],
  }),
  catalogHints: z.array(z.string()).default([]),
});
export type ExtractedEvent = z.infer<typeof ExtractedEvent>;

export const ExtractionOutput = z.object({ events: z.array(ExtractedEvent) });
export type ExtractionOutput = z.infer<typeof ExtractionOutput>;

/** A timeline entry the extractor may relate new events to (MM-EVT-13), without weight. */
export interface TimelineEntry {
  id: string;
  title: string;
  summary: string;
  scope: (typeof SCOPES)[number];
  criticality: (typeof CRITICALITIES)[number];
  status: 'active' | 'superseded';
  supersededBy: string | null;
  temporal: Partial<ExtractedTemporal>;
}
