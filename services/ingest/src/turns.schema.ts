import { z } from 'zod';
import { requestSchema, responseSchema } from '@stratagate/http';

const nonBlank = (max: number) =>
  z
    .string()
    .max(max)
    .refine((s) => s.trim().length > 0, 'must not be blank');

export const TurnToolCall = z.object({
  name: nonBlank(200),
  arguments: z.unknown().optional(),
  result: z.unknown().optional(),
});

export const TurnMessage = z.object({
  role: z.enum(['user', 'assistant', 'tool', 'system']),
  name: nonBlank(200).optional().describe('speaker name, e.g. the person behind the user role'),
  content: z.string().max(200_000),
  toolCalls: z.array(TurnToolCall).max(64).optional(),
});

export const PostTurnBody = requestSchema(
  z.object({
    turnId: nonBlank(200).optional().describe('client id; the same id again is the same turn'),
    threadId: nonBlank(200).optional().describe("thread (session); 'default' when absent"),
    occurredAt: z.iso
      .datetime({ offset: true })
      .optional()
      .describe("when the turn finished, ISO-8601; the caller's offset is kept"),
    messages: z.array(TurnMessage).min(1).max(64),
  }),
  {
    turnId: 'turn-0001',
    threadId: 'session-42',
    occurredAt: '2023-05-08T13:56:00+08:00',
    messages: [
      { role: 'user', name: 'Caroline', content: 'We switched the project to pnpm.' },
      { role: 'assistant', content: 'Noted: the project now uses pnpm.' },
    ],
  },
  {
    turnId: 'turn-0002',
    threadId: 'session-42',
    occurredAt: '2023-05-08T13:58:00+08:00',
    messages: [
      { role: 'user', name: 'Caroline', content: 'Is the CI green after the switch?' },
      {
        role: 'assistant',
        content: 'The last run passed.',
        toolCalls: [
          {
            name: 'ci_status',
            arguments: { branch: 'main' },
            result: { status: 'passed', run: 1842 },
          },
        ],
      },
    ],
  },
);
export type PostTurnBody = z.infer<typeof PostTurnBody>;

export const PostTurnReply = responseSchema(
  z.object({
    turnId: z.string(),
    threadId: z.string(),
    position: z.number().describe('global log position of the turn record'),
    spaceVersion: z.number().describe('version of the space stream after this turn'),
    spaceTurn: z.number().describe('1-based turn number within the space'),
    threadTurn: z.number().describe('1-based turn number within the thread'),
    sealedBlockId: z
      .string()
      .nullable()
      .describe('the block this turn completed and sealed, if it filled one'),
  }),
  'Accepted: the turn is durable in the log (also the answer to a replayed `turnId`, then with `Idempotent-Replayed: true`).',
  {
    turnId: 'turn-0002',
    threadId: 'session-42',
    position: 3,
    spaceVersion: 3,
    spaceTurn: 2,
    threadTurn: 2,
    sealedBlockId: 'blk_5be877ba2fd4424f8be85bfc62f082ae',
  },
);
export type PostTurnReply = z.infer<typeof PostTurnReply>;

const CloseThreadReply = z.object({
  spaceId: z.string(),
  threadId: z.string(),
  sealed: z.boolean().describe('whether an open tail was sealed (202) or there was none (200)'),
  blockId: z.string().nullable().describe('the block sealed from the open tail'),
  turnRange: z
    .array(z.number().int())
    .length(2)
    .nullable()
    .describe('first and last thread turn of the sealed block'),
  position: z.number().nullable().describe('global log position of the seal record'),
});

export const CloseThreadSealedReply = responseSchema(
  CloseThreadReply,
  'Accepted: the open tail was sealed as a (shorter) block; summaries and extraction follow asynchronously.',
  {
    spaceId: 'project:acme',
    threadId: 'session-42',
    sealed: true,
    blockId: 'blk_3e869e5a6f3e4987911b499c0fd1aab4',
    turnRange: [5, 5],
    position: 15,
  },
);

export const CloseThreadNothingReply = responseSchema(
  CloseThreadReply,
  'The thread had no open turns: nothing was sealed or appended.',
  {
    spaceId: 'project:acme',
    threadId: 'session-42',
    sealed: false,
    blockId: null,
    turnRange: null,
    position: null,
  },
);

export const SpaceSettingsBody = requestSchema(
  z
    .object({
      blockSize: z
        .number()
        .int()
        .min(1)
        .max(200)
        .optional()
        .describe('turns per block (default 12)'),
      decayLambda: z
        .number()
        .finite()
        .min(0)
        .max(5)
        .optional()
        .describe('block fading rate λ (default 0.30; above 0.4 discouraged)'),
    })
    .refine(
      (b) => b.blockSize !== undefined || b.decayLambda !== undefined,
      'give blockSize or decayLambda',
    ),
  { blockSize: 8, decayLambda: 0.3 },
);

export const SpaceSettingsReply = responseSchema(
  z.object({
    spaceId: z.string(),
    blockSize: z.number().int().describe('turns per block from now on'),
    decayLambda: z.number().describe('block fading rate λ'),
    spaceVersion: z.number().int().describe('version of the space stream after the change'),
  }),
  'The settings now in force.',
  { spaceId: 'project:acme', blockSize: 8, decayLambda: 0.3, spaceVersion: 1 },
);

export const RetryBody = requestSchema(
  z.object({
    job: z.enum(['summary', 'extraction', 'graph']).default('summary'),
  }),
  { job: 'summary' },
);

export const RetryReply = responseSchema(
  z.object({
    blockId: z.string(),
    job: z.enum(['summary', 'extraction', 'graph']),
    position: z.number().nullable().describe('global log position of the retry request'),
  }),
  'Accepted: the retry is recorded; the job runs again asynchronously.',
  { blockId: 'blk_5be877ba2fd4424f8be85bfc62f082ae', job: 'summary', position: 17 },
);
