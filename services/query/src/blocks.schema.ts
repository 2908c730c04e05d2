import { z } from 'zod';
import { Count, counter, IdParam, requestSchema, responseSchema } from '@stratagate/http';
import { BLOCK_2, BLOCK_3, exampleBlockView, L5_BLOCK_1, SPACE, THREAD } from './api-examples.ts';
import { BoundsSchema, exampleBounds } from './bounds.schema.ts';

/** A pair of 1-based thread turns, first and last. */
export const TurnRange = z.array(Count).length(2).describe('first and last thread turn, inclusive');

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
  sequence: Count.describe('1-based position of the block in its thread'),
  turnRange: TurnRange,
  age: Count.describe('ready blocks of the thread added since the block was sealed or last lifted'),
  weight: z
    .number()
    .min(0)
    .max(1)
    .describe('how much of the block fading keeps, e^(−λ·age); its level follows from it'),
  level: BlockLevelNumber,
  label: z.string().describe('the level as `L0`..`L5`'),
  content: z.string().describe('the block rendered at `level`'),
  tokens: Count.describe('token count of `content`'),
  lastLiftedAt: z.string().nullable().describe('when an expand last lifted the block'),
  lastLiftedBy: z.string().nullable().describe('who lifted it: `agent` or `user`'),
});

const SummaryStatus = z.enum(['pending', 'succeeded', 'failed']);

export const ThreadContextReply = responseSchema(
  z.object({
    spaceId: z.string(),
    threadId: z.string(),
    decayLambda: z.number().describe('the space’s fading rate λ'),
    newestReadyPosition: Count.describe('ready blocks in the thread so far'),
    blocks: z.array(BlockViewSchema).describe('ready blocks at their decayed level, oldest first'),
    pendingBlocks: z
      .array(z.object({ id: z.string(), turnRange: TurnRange, summaryStatus: SummaryStatus }))
      .describe('sealed blocks whose summary job has not succeeded yet'),
    openTail: z.object({
      turns: Count.describe('turns recorded but not yet sealed into a block'),
      messages: z.array(
        z.object({
          messageId: z.string(),
          turnId: z.string(),
          threadTurn: Count,
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
    bounds: BoundsSchema,
    projectedPosition: counter(
      "log position of the space's last record the read model has applied",
    ),
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
        weight: 1,
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
    bounds: exampleBounds,
    projectedPosition: 18,
  },
);

const BlockJobs = {
  status: z
    .enum(['pending', 'ready'])
    .describe('ready once the summary job succeeded (L0–L2 exist)'),
  summaryStatus: SummaryStatus,
  summaryAttempts: Count,
  summaryNextRetryAt: z.string().nullable().describe('when a failed summary job is retried'),
  summaryLastError: z.string().nullable(),
  extractionStatus: z.enum(['pending', 'succeeded', 'skipped', 'failed']),
  extractionAttempts: Count,
  extractionNextRetryAt: z.string().nullable(),
  extractionLastError: z.string().nullable(),
  eventCount: Count.describe('memory events extracted from the block'),
  graphStatus: z.enum(['none', 'pending', 'completed', 'failed']),
  graphAttempts: Count,
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

/**
 * The expand targets the contract accepts: a level by name or number, `raw` (= L5), and `next` or
 * `+1` (one level up). The rule behind them reads anything else as one level up; over HTTP a word
 * outside this list is refused instead, so a typo never lifts a block silently.
 */
export const EXPAND_TARGETS = [
  'raw',
  'next',
  '+1',
  ...(['L0', 'L1', 'L2', 'L3', 'L4', 'L5'] as const),
  ...(['0', '1', '2', '3', '4', '5'] as const),
] as const;

export const ExpandBlockBody = requestSchema(
  z
    .strictObject({
      target: z
        .union([z.enum(EXPAND_TARGETS), z.number().finite()])
        .nullable()
        .optional()
        .describe(
          '`raw`, `L5` or 5 lift to the raw conversation; `next`, `+1` or nothing lift one level; `L0`–`L5` or `0`–`5` name the level; another number is rounded and kept within 0–5. Other words are refused (400)',
        ),
      source: z
        .enum(['agent', 'user'])
        .default('agent')
        .describe('who asked for the lift: an agent (default) or the user'),
      threadId: IdParam.optional().describe(
        "the session whose evidence batch this expansion opens (default: the block's own thread)",
      ),
    })
    .default({ source: 'agent' }),
  { target: 'raw', source: 'agent' },
  { target: 'next' },
);

export const ExpandBlockReply = responseSchema(
  BlockViewSchema.extend({
    fromLevel: BlockLevelNumber.describe('the decayed level before the lift'),
    position: counter('log position of the expansion record', 1).nullable(),
    batchId: z.string().describe('the evidence batch this expansion opened'),
    evidenceRefs: z.array(z.string()).describe('`block:<id>:level:<L>`'),
  }),
  'The block at its new level; its fading starts over from there.',
  {
    ...exampleBlockView,
    age: 0,
    weight: 1,
    content: L5_BLOCK_1,
    fromLevel: 3,
    position: 16,
    batchId: 'batch_6',
    evidenceRefs: [`block:${exampleBlockView.id}:level:5`],
  },
);

export const SpaceStatusReply = responseSchema(
  z.object({
    spaceId: z.string(),
    blockSize: Count,
    decayLambda: z.number(),
    turnCounter: Count.describe('turns recorded in the space'),
    blocks: z.object({
      total: Count,
      ready: Count,
      pending: Count,
    }),
    summaryJobs: z.object({
      pending: Count,
      succeeded: Count,
      failed: Count,
    }),
    extractionJobs: z.object({
      pending: Count,
      succeeded: Count,
      skipped: Count,
      failed: Count,
    }),
    graphJobs: z.object({
      pending: Count,
      completed: Count,
      failed: Count,
    }),
    topicJobs: z
      .object({
        unassignedEvents: Count.describe('memory events no topic chapter holds yet'),
        pendingUpdate: Count.describe('chapters waiting to be built again after a member changed'),
        status: z
          .enum(['idle', 'due', 'failed'])
          .describe(
            '`due`: the topic directory has work to do; `failed`: its last batch failed (see `lastError`; a retry follows while attempts are left)',
          ),
        attempts: Count.describe('failed attempts of the current batch'),
        lastError: z.string().nullable(),
      })
      .describe('the topic directory: chapters over the memory events (built after the graph)'),
    projectedPosition: counter(
      "log position of the space's last record the read model has applied",
    ),
    logPosition: counter(
      "log position of the space's last record; equal to `projectedPosition` once projection caught up",
    ),
    settled: z
      .boolean()
      .describe(
        'true when projection has caught up with the space and every derivation job of every sealed block is final (succeeded, skipped, or failed with no retry left)',
      ),
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
    topicJobs: {
      unassignedEvents: 0,
      pendingUpdate: 0,
      status: 'idle',
      attempts: 0,
      lastError: null,
    },
    projectedPosition: 15,
    logPosition: 15,
    settled: false,
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

export type ThreadContextReply = z.infer<typeof ThreadContextReply>;
export type BlockReply = z.infer<typeof BlockReply>;
export type ExpandBlockReply = z.infer<typeof ExpandBlockReply>;
export type SpaceStatusReply = z.infer<typeof SpaceStatusReply>;

export const ListBlocksBody = requestSchema(
  z
    .strictObject({
      scope: z
        .enum(['session', 'space'])
        .default('session')
        .describe("`session`: this thread's blocks (default); `space`: the space's newest blocks"),
      limit: z
        .number()
        .int()
        .min(1)
        .max(100)
        .default(20)
        .describe('newest blocks to list (1–100, default 20)'),
    })
    .default({ scope: 'session', limit: 20 }),
  { scope: 'session' },
  { scope: 'space', limit: 10 },
);

export const ListBlocksReply = responseSchema(
  z.object({
    batchId: z.string().describe('the evidence batch this listing opened'),
    evidenceRefs: z.array(z.string()).describe('`block:<id>:level:<L>` of each view listed'),
    scope: z.enum(['session', 'space']),
    spaceId: z.string(),
    threadId: z.string(),
    blocks: z.array(BlockViewSchema).describe('ready blocks at their decayed level, oldest first'),
    blockCount: Count.describe('ready blocks in the scope (before the text bound)'),
    spaceBlockCount: Count.describe('blocks sealed in the whole space'),
    spaceThreadIds: z.array(z.string()).describe('threads of the space that have blocks'),
    openTailCount: Count.describe("messages in this thread's open tail, not yet sealed"),
    emptyReason: z
      .enum(['no_blocks_in_space', 'blocks_exist_in_other_threads', 'open_tail_pending'])
      .nullable()
      .describe('why the list is empty, when it is'),
    bounds: BoundsSchema,
  }),
  'Block views in an evidence batch; cite them as `block:<id>:level:<L>`.',
  {
    batchId: 'batch_7',
    evidenceRefs: [`block:${exampleBlockView.id}:level:5`],
    scope: 'session',
    spaceId: SPACE,
    threadId: THREAD,
    blocks: [exampleBlockView],
    blockCount: 1,
    spaceBlockCount: 1,
    spaceThreadIds: [THREAD],
    openTailCount: 0,
    emptyReason: null,
    bounds: exampleBounds,
  },
);
export type ListBlocksReply = z.infer<typeof ListBlocksReply>;
