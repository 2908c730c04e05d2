import { z } from 'zod';
import { requestSchema, responseSchema } from '@stratagate/http';
import { BLOCK_2, BLOCK_3, exampleBlockView, L5_BLOCK_1, SPACE, THREAD } from './api-examples.ts';

/** A pair of 1-based thread turns, first and last. */
export const TurnRange = z
  .array(z.number().int())
  .length(2)
  .describe('first and last thread turn, inclusive');

export const MessageRole = z.enum(['user', 'assistant', 'tool', 'system']);

export const BlockLevelNumber = z
  .number()
  .int()
  .min(0)
  .max(5)
  .describe('0 title+tags, 1 summary, 2 key points, 3 condensed, 4 readable, 5 raw');

/** A block rendered at one level (MM-BLK-17/18/21). */
export const BlockViewSchema = z.object({
  id: z.string(),
  threadId: z.string(),
  sequence: z.number().int().describe('1-based position of the block in its thread'),
  turnRange: TurnRange,
  age: z
    .number()
    .int()
    .describe('ready blocks of the thread added since the block was sealed or last lifted'),
  level: BlockLevelNumber,
  label: z.string().describe('the level as `L0`..`L5`'),
  content: z.string().describe('the block rendered at `level`'),
  tokens: z.number().int().describe('token count of `content`'),
  lastLiftedAt: z.string().nullable().describe('when an expand last lifted the block'),
  lastLiftedBy: z.string().nullable().describe('who lifted it: `agent` or `user`'),
});

const SummaryStatus = z.enum(['pending', 'succeeded', 'failed']);

export const ThreadContextReply = responseSchema(
  z.object({
    spaceId: z.string(),
    threadId: z.string(),
    decayLambda: z.number().describe('the space’s fading rate λ'),
    newestReadyPosition: z.number().int().describe('ready blocks in the thread so far'),
    blocks: z.array(BlockViewSchema).describe('ready blocks at their decayed level, oldest first'),
    pendingBlocks: z
      .array(z.object({ id: z.string(), turnRange: TurnRange, summaryStatus: SummaryStatus }))
      .describe('sealed blocks whose summary job has not succeeded yet'),
    openTail: z.object({
      turns: z.number().int().describe('turns recorded but not yet sealed into a block'),
      messages: z.array(
        z.object({
          messageId: z.string(),
          turnId: z.string(),
          threadTurn: z.number().int(),
          role: MessageRole,
          name: z.string().optional(),
          content: z.string(),
          toolCalls: z.array(
            z.object({
              name: z.string(),
              arguments: z.unknown().optional(),
              result: z.unknown().optional(),
            }),
          ),
          occurredAt: z.string().describe('as the client sent it, offset kept'),
        }),
      ),
    }),
    projectedPosition: z.number().describe('global log position the read model has applied'),
  }),
  "The thread's context: decayed ready blocks, pending blocks and the open tail.",
  {
    spaceId: SPACE,
    threadId: THREAD,
    decayLambda: 0.3,
    newestReadyPosition: 2,
    blocks: [
      exampleBlockView,
      {
        id: BLOCK_2,
        threadId: THREAD,
        sequence: 2,
        turnRange: [3, 4],
        age: 0,
        level: 5,
        label: 'L5',
        content:
          'user: Atlas is hosted in Munich, at the Hetzner data centre.\n\nassistant: Got it, Atlas runs in Munich.\n\nuser: I prefer short answers with code first.\n\nassistant: Understood, code first.',
        tokens: 47,
        lastLiftedAt: null,
        lastLiftedBy: null,
      },
    ],
    pendingBlocks: [{ id: BLOCK_3, turnRange: [5, 6], summaryStatus: 'pending' }],
    openTail: {
      turns: 1,
      messages: [
        {
          messageId: 'msg_9d1c0f6e2b7a4c55a0e3f1b2c4d5e6f7',
          turnId: 'turn-0007',
          threadTurn: 7,
          role: 'user',
          name: 'Caroline',
          content: 'Did the CI pass after the pnpm switch?',
          toolCalls: [],
          occurredAt: '2023-05-08T14:02:00+08:00',
        },
        {
          messageId: 'msg_0a6b1d7c3e8f4d66b1f4a2c3d5e6f708',
          turnId: 'turn-0007',
          threadTurn: 7,
          role: 'assistant',
          content: 'Yes, the last run on main passed.',
          toolCalls: [
            {
              name: 'ci_status',
              arguments: { branch: 'main' },
              result: { status: 'passed', run: 1842 },
            },
          ],
          occurredAt: '2023-05-08T14:02:00+08:00',
        },
      ],
    },
    projectedPosition: 18,
  },
);

const BlockJobs = {
  status: z
    .enum(['pending', 'ready'])
    .describe('ready once the summary job succeeded (L0–L2 exist)'),
  summaryStatus: SummaryStatus,
  summaryAttempts: z.number().int(),
  summaryNextRetryAt: z.string().nullable().describe('when a failed summary job is retried'),
  summaryLastError: z.string().nullable(),
  extractionStatus: z.enum(['pending', 'succeeded', 'skipped', 'failed']),
  extractionAttempts: z.number().int(),
  extractionNextRetryAt: z.string().nullable(),
  extractionLastError: z.string().nullable(),
  eventCount: z.number().int().describe('memory events extracted from the block'),
  graphStatus: z.enum(['none', 'pending', 'completed', 'failed']),
  graphAttempts: z.number().int(),
  graphLastError: z.string().nullable(),
};

const exampleJobs = {
  status: 'ready' as const,
  summaryStatus: 'succeeded' as const,
  summaryAttempts: 1,
  summaryNextRetryAt: null,
  summaryLastError: null,
  extractionStatus: 'succeeded' as const,
  extractionAttempts: 1,
  extractionNextRetryAt: null,
  extractionLastError: null,
  eventCount: 2,
  graphStatus: 'completed' as const,
  graphAttempts: 1,
  graphLastError: null,
};

export const BlockReply = responseSchema(
  BlockViewSchema.extend({
    currentLevel: BlockLevelNumber.optional().describe(
      'the decayed level, when another `level` was asked for',
    ),
    ...BlockJobs,
  }),
  'The block at the requested (or its current) level, with the state of its derivation jobs.',
  { ...exampleBlockView, ...exampleJobs },
  {
    ...exampleBlockView,
    level: 1,
    label: 'L1',
    content:
      'Caroline: We switched Project Atlas from npm to pnpm last week. Caroline: The Atlas CI still has to be verified after the pnpm migration.',
    tokens: 35,
    currentLevel: 5,
    ...exampleJobs,
  },
);

export const ExpandBlockBody = requestSchema(
  z
    .object({
      target: z
        .union([z.string().max(20), z.number()])
        .nullable()
        .optional()
        .describe(
          "'raw'/'L5'/5, 'next'/'+1' (default), 'L0'..'L5', or a number (rounded, clamped)",
        ),
      source: z.enum(['agent', 'user']).default('agent'),
    })
    .default({ source: 'agent' }),
  { target: 'raw', source: 'agent' },
  { target: 'next' },
);

export const ExpandBlockReply = responseSchema(
  BlockViewSchema.extend({
    fromLevel: BlockLevelNumber.describe('the decayed level before the lift'),
    position: z.number().nullable().describe('global log position of the expansion record'),
  }),
  'The block at its new level; its fading starts over from there.',
  { ...exampleBlockView, age: 0, content: L5_BLOCK_1, fromLevel: 3, position: 16 },
);

export const SpaceStatusReply = responseSchema(
  z.object({
    spaceId: z.string(),
    blockSize: z.number().int(),
    decayLambda: z.number(),
    turnCounter: z.number().int().describe('turns recorded in the space'),
    blocks: z.object({
      total: z.number().int(),
      ready: z.number().int(),
      pending: z.number().int(),
    }),
    summaryJobs: z.object({
      pending: z.number().int(),
      succeeded: z.number().int(),
      failed: z.number().int(),
    }),
    extractionJobs: z.object({
      pending: z.number().int(),
      succeeded: z.number().int(),
      skipped: z.number().int(),
      failed: z.number().int(),
    }),
    graphJobs: z.object({
      pending: z.number().int(),
      completed: z.number().int(),
      failed: z.number().int(),
    }),
    projectedPosition: z.number().describe('global log position the read model has applied'),
    logPosition: z
      .number()
      .describe('head of the log; equal to `projectedPosition` once projection caught up'),
  }),
  'Counters of the space, derivation job states and projection progress.',
  {
    spaceId: SPACE,
    blockSize: 2,
    decayLambda: 0.3,
    turnCounter: 5,
    blocks: { total: 3, ready: 2, pending: 1 },
    summaryJobs: { pending: 1, succeeded: 2, failed: 0 },
    extractionJobs: { pending: 1, succeeded: 2, skipped: 0, failed: 0 },
    graphJobs: { pending: 0, completed: 2, failed: 0 },
    projectedPosition: 15,
    logPosition: 15,
  },
);

export const BLOCK_NOT_READY_EXAMPLE = {
  code: 'block_not_ready',
  message: `block '${BLOCK_3}' has no L0–L2 yet`,
};

export const BLOCK_NOT_EXPANDABLE_EXAMPLE = {
  code: 'block_not_ready',
  message: `block '${BLOCK_3}' is not ready for decay or expansion`,
};
