import { z } from 'zod';
import { Count, requestSchema, responseSchema, Truncated } from '@stratagate/http';
import {
  AGENT_THREAD,
  BLOCK_1,
  EVT_PNPM,
  exampleEventCard,
  MSG_CI,
  MSG_CI_REPLY,
  MSG_PNPM_REPLY,
  SPACE,
  THREAD,
} from './api-examples.ts';
import { MessageRole, TurnRange } from './blocks.schema.ts';
import { EventCardSchema } from './memory-events.schema.ts';

export const RawSearchBody = requestSchema(
  z.strictObject({
    query: z.string().min(1).max(2000),
    limit: z.number().int().min(1).max(20).default(6),
    scope: z
      .enum(['space', 'session'])
      .default('space')
      .describe('`session` searches only the thread in the path'),
  }),
  { query: 'pnpm migration CI', limit: 2, scope: 'space' },
  { query: 'Munich data centre' },
);

const RawMessageCard = z.object({
  messageId: z.string(),
  role: MessageRole,
  name: z.string().optional(),
  content: z.string().describe('≤ 500 code points'),
  createdAt: z.string().describe('when the message was said (the turn’s occurredAt)'),
});

const ciMessage = {
  messageId: MSG_CI,
  role: 'user' as const,
  name: 'Caroline',
  content: 'The Atlas CI still has to be verified after the pnpm migration.',
  createdAt: '2023-05-08T13:52:00+08:00',
};

export const RawSearchReply = responseSchema(
  z.object({
    batchId: z.string().describe('the evidence batch this search opened'),
    evidenceRefs: z.array(z.string()).describe('the refs of the hits, in rank order'),
    scope: z.enum(['space', 'session']),
    space: z.string(),
    threadId: z.string(),
    hits: z.array(
      z.object({
        ref: z.string().describe('evidence ref `raw:<blockId>:<messageId>:<index in block>`'),
        blockId: z.string(),
        threadId: z.string(),
        turnRange: TurnRange,
        message: RawMessageCard,
        nearby: z.array(RawMessageCard).describe('the hit with its neighbours in the block'),
        rankScore: z.number().describe('orders results only; never a probability of truth'),
        scoreMeaning: z.string(),
      }),
    ),
  }),
  'Sealed raw messages in rank order; an evidence batch holding their refs is open.',
  {
    batchId: 'batch_1',
    evidenceRefs: [`raw:${BLOCK_1}:${MSG_CI}:2`],
    scope: 'space',
    space: SPACE,
    threadId: AGENT_THREAD,
    hits: [
      {
        ref: `raw:${BLOCK_1}:${MSG_CI}:2`,
        blockId: BLOCK_1,
        threadId: THREAD,
        turnRange: [1, 2],
        message: ciMessage,
        nearby: [
          {
            messageId: MSG_PNPM_REPLY,
            role: 'assistant',
            content: 'Noted: Project Atlas now uses pnpm.',
            createdAt: '2023-05-08T13:51:00+08:00',
          },
          ciMessage,
          {
            messageId: MSG_CI_REPLY,
            role: 'assistant',
            content: 'I will remind you to verify the CI.',
            createdAt: '2023-05-08T13:52:00+08:00',
          },
        ],
        rankScore: 2.458831087386856,
        scoreMeaning: 'BM25 relevance; orders results only, never a probability of truth',
      },
    ],
  },
);

export const EventSearchReply = responseSchema(
  z.object({
    batchId: z.string().describe('the evidence batch this search opened'),
    evidenceRefs: z.array(z.string()).describe('the refs of the hits, in rank order'),
    hits: z.array(
      EventCardSchema.extend({
        ref: z.string().describe('evidence ref `event:<id>`'),
        title: z.string().describe('≤ 240 code points'),
        summary: z.string().describe('≤ 800 code points'),
        sourceTime: z.string().describe('happenedStart, else mentionedAt, else createdAt'),
        rankScore: z.number().describe('orders results only; never a probability of truth'),
        scoreMeaning: z.string(),
      }),
    ),
    truncated: Truncated,
    topic: z
      .object({
        topicId: z.string(),
        totalSourceEvents: Count.describe("the topic's member events"),
        offset: Count,
        nextOffset: Count.nullable().describe('the offset of the next page; null on the last'),
      })
      .optional()
      .describe('present when the search was scoped to a topic'),
  }),
  'Memory events (active or superseded) in rank order; an evidence batch holding their refs is open.',
  {
    batchId: 'batch_2',
    evidenceRefs: [`event:${EVT_PNPM}`],
    hits: [
      {
        ref: `event:${EVT_PNPM}`,
        ...exampleEventCard,
        sourceTime: '2023-05-01',
        rankScore: 1,
        scoreMeaning:
          'BM25 relevance and structured order, fused over the memory pools; orders results only, never a probability of truth',
      },
    ],
    truncated: false,
  },
);

export type RawSearchReply = z.infer<typeof RawSearchReply>;
export type EventSearchReply = z.infer<typeof EventSearchReply>;
