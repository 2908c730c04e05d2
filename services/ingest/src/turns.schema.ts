import { z } from 'zod';
import { PROFILE_ID_PATTERN } from '@stratagate/domain';
import { counter, IdParam, idempotencyKey, requestSchema, responseSchema } from '@stratagate/http';

const nonBlank = (max: number) =>
  z
    .string()
    .max(max)
    .refine((s) => s.trim().length > 0, 'must not be blank');

export const TurnToolCall = z.strictObject({
  name: nonBlank(200),
  arguments: z.unknown().optional(),
  result: z.unknown().optional(),
});

export const TurnMessage = z.strictObject({
  role: z.enum(['user', 'assistant', 'tool', 'system']),
  name: nonBlank(200).optional().describe('speaker name, e.g. the person behind the user role'),
  content: z.string().max(200_000),
  toolCalls: z.array(TurnToolCall).max(64).optional(),
});

export const PostTurnBody = requestSchema(
  z.strictObject({
    turnId: idempotencyKey(
      nonBlank(200)
        .optional()
        .describe(
          'your id for the turn: the same id again with the same turn is answered as before, with anything different it is refused (409)',
        ),
    ),
    threadId: IdParam.optional().describe(
      "the thread (session) the turn belongs to, an id of letters, digits, `.`, `_`, `:` and `-`. Optional: without it the turn goes to the thread `default`, one conversation for the whole space. Give each session its own id to keep sessions apart: it is the id you read the thread's context with and close it by",
    ),
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
    position: counter('log position of the turn record', 1),
    spaceVersion: counter('version of the space stream after this turn', 1),
    spaceTurn: counter('1-based turn number within the space', 1),
    threadTurn: counter('1-based turn number within the thread', 1),
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
    .array(counter('thread turn', 1))
    .length(2)
    .nullable()
    .describe('first and last thread turn of the sealed block'),
  position: counter('log position of the seal record', 1).nullable(),
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
    .strictObject({
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
      profileId: z
        .string()
        .regex(PROFILE_ID_PATTERN, 'profile id: 1–64 of letters, digits, . _ : -')
        .optional()
        .describe(
          'the resident profile of your tenant this space reads (default: `default`); every recall in the space includes it',
        ),
    })
    .refine(
      (b) => b.blockSize !== undefined || b.decayLambda !== undefined || b.profileId !== undefined,
      'give blockSize, decayLambda or profileId',
    ),
  { blockSize: 8, decayLambda: 0.3 },
  { profileId: 'caroline' },
);

export const SpaceSettingsReply = responseSchema(
  z.object({
    spaceId: z.string(),
    blockSize: z.number().int().min(1).max(200).describe('turns per block from now on'),
    decayLambda: z.number().min(0).max(5).describe('block fading rate λ'),
    profileId: z.string().describe('the resident profile the space reads'),
    spaceVersion: counter('version of the space stream after the change'),
  }),
  'The settings now in force.',
  {
    spaceId: 'project:acme',
    blockSize: 8,
    decayLambda: 0.3,
    profileId: 'default',
    spaceVersion: 1,
  },
);

export const RetryBody = requestSchema(
  z.strictObject({
    job: z.enum(['summary', 'extraction', 'graph']).default('summary'),
  }),
  { job: 'summary' },
);

export const RetryReply = responseSchema(
  z.object({
    blockId: z.string(),
    job: z.enum(['summary', 'extraction', 'graph']),
    position: counter('log position of the retry request', 1).nullable(),
  }),
  'Accepted: the retry is recorded; the job runs again asynchronously.',
  { blockId: 'blk_5be877ba2fd4424f8be85bfc62f082ae', job: 'summary', position: 17 },
);
export const RetryTopicsReply = responseSchema(
  z.object({
    spaceId: z.string(),
    position: counter('log position of the retry request', 1).nullable(),
  }),
  "Accepted: the retry is recorded; the space's topic job runs again asynchronously.",
  { spaceId: 'atlas', position: 42 },
);
export type RetryTopicsReply = z.infer<typeof RetryTopicsReply>;
export type CloseThreadSealedReply = z.infer<typeof CloseThreadSealedReply>;
export type SpaceSettingsReply = z.infer<typeof SpaceSettingsReply>;
export type RetryReply = z.infer<typeof RetryReply>;
