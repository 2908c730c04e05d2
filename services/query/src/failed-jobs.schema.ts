import { z } from 'zod';
import { Count, responseSchema } from '@stratagate/http';
import { BLOCK_1, SPACE, THREAD } from './api-examples.ts';
import { TurnRange } from './blocks.schema.ts';

export const FailedJobsReply = responseSchema(
  z.object({
    spaceId: z.string(),
    jobs: z.array(
      z.object({
        blockId: z.string(),
        threadId: z.string(),
        turnRange: TurnRange,
        job: z.enum(['summary', 'extraction', 'graph']).describe('what to pass to the retry'),
        attempts: Count,
        nextRetryAt: z.string().nullable().describe('null: no retry is planned without a person'),
        lastError: z.string().nullable(),
      }),
    ),
    offset: Count,
    nextOffset: Count.nullable().describe(
      'the offset of the next page of blocks; null on the last',
    ),
  }),
  "The space's failed derivation jobs, by block (each retried with POST …/blocks/{blockId}/retry).",
  {
    spaceId: SPACE,
    jobs: [
      {
        blockId: BLOCK_1,
        threadId: THREAD,
        turnRange: [1, 2],
        job: 'summary',
        attempts: 3,
        nextRetryAt: null,
        lastError: 'timeout: the model did not answer within 60 s',
      },
    ],
    offset: 0,
    nextOffset: null,
  },
);
export type FailedJobsReply = z.infer<typeof FailedJobsReply>;
