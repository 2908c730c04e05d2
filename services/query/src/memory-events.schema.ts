import { z } from 'zod';
import { Count, responseSchema, Truncated } from '@stratagate/http';
import {
  BLOCK_1,
  EVT_CI,
  exampleEventCard,
  exampleSourceMessage,
  MSG_CI,
  SPACE,
  TITLE_CI,
} from './api-examples.ts';
import { MessageRole } from './blocks.schema.ts';

export const EventStatus = z
  .enum(['active', 'superseded', 'forgotten', 'archived'])
  .describe('superseded events stay visible as history; forgotten ones leave retrieval');
export const EventScope = z.enum(['user', 'project', 'session']);
export const EventCriticality = z
  .enum(['routine', 'preference', 'identity', 'safety'])
  .describe('sets the weight floor: routine 0, preference 0.3, identity 0.9, safety 1');

/** The `temporal` JSON of an event: open, as the extractor or remember wrote it. */
export const TemporalJson = z
  .record(z.string(), z.unknown())
  .describe(
    'when it was said and happened: mentionedAt, happenedStart/End, precision, basis, status, participants, eventType, related/superseded/conflicting event ids',
  );

/** A memory event as the API shows it (`eventCard`): content, provenance, both times, weight. */
export const EventCardSchema = z.object({
  id: z.string(),
  title: z.string(),
  summary: z.string(),
  tags: z.array(z.string()),
  quotes: z.array(z.string()).describe('verbatim snippets of the source messages'),
  scope: EventScope,
  criticality: EventCriticality,
  eventType: z
    .string()
    .describe('decision, release, task_completed, plan, change, cancellation, incident, …'),
  pool: z
    .enum(['extracted', 'agent'])
    .describe('extracted from sealed blocks, or recorded by an agent through remember'),
  status: EventStatus,
  supersededBy: z.string().nullable(),
  sourceBlockId: z
    .string()
    .nullable()
    .describe('null only for agent events citing open-tail messages'),
  sourceMessageIds: z.array(z.string()).describe('provenance: the messages it came from'),
  threadId: z.string().nullable(),
  temporal: TemporalJson,
  conflictsWith: z.array(z.string()).describe('events that later marked a conflict with this one'),
  catalogHints: z.array(z.string()),
  formedTurn: Count.describe('space turn at the end of the source block'),
  createdAt: z.string(),
  updatedAt: z.string(),
  weight: z.object({
    mentionCount: Count,
    lastAdoptedTurn: Count,
    lastRetrievedAt: z.string().nullable(),
    pinned: z.boolean(),
    forcedCap: z.number().nullable(),
    value: z.number().describe('0–1; orders results only'),
    meaning: z.string(),
  }),
});

/** A source message of an event (provenance). */
export const SourceMessageSchema = z.object({
  messageId: z.string(),
  role: MessageRole,
  name: z.string().optional(),
  content: z.string(),
  occurredAt: z.string(),
  threadId: z.string(),
  threadTurn: Count,
});

export const MemoryEventListReply = responseSchema(
  z.object({
    spaceId: z.string(),
    events: z.array(EventCardSchema).describe('newest source block first'),
    nextOffset: Count.nullable().describe('the `offset` of the next page, if any'),
    truncated: Truncated,
  }),
  'One page of memory events.',
  {
    spaceId: SPACE,
    events: [
      exampleEventCard,
      {
        ...exampleEventCard,
        id: EVT_CI,
        title: TITLE_CI,
        summary: `${TITLE_CI}.`,
        tags: ['Caroline', 'atlas', 'ci', 'pnpm', 'migration'],
        quotes: ['The Atlas CI still has to be verified after the pnpm migration.'],
        eventType: 'migration',
        sourceBlockId: BLOCK_1,
        sourceMessageIds: [MSG_CI],
        temporal: {
          basis: 'unknown',
          status: 'ongoing',
          threadId: 'session-42',
          eventType: 'migration',
          precision: 'unknown',
          mentionedAt: '2023-05-08T13:52:00+08:00',
          participants: ['Caroline'],
          relatedEventIds: [],
          supersedesEventIds: [],
          conflictsWithEventIds: [],
        },
      },
    ],
    nextOffset: 2,
    truncated: false,
  },
);

export const MemoryEventDetailReply = responseSchema(
  EventCardSchema.extend({
    sources: z.array(SourceMessageSchema).describe('the source messages, in citation order'),
  }),
  'The memory event with its source messages.',
  { ...exampleEventCard, sources: [exampleSourceMessage] },
);

export type MemoryEventListReply = z.infer<typeof MemoryEventListReply>;
export type MemoryEventDetailReply = z.infer<typeof MemoryEventDetailReply>;
