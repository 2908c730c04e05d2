import { z } from 'zod';
import { Count, counter, responseSchema } from '@stratagate/http';
import { SPACE, THREAD, AGENT_THREAD } from './api-examples.ts';

export const SpaceListReply = responseSchema(
  z.object({
    spaces: z.array(
      z.object({
        spaceId: z.string(),
        turnCounter: Count.describe('turns recorded in the space'),
        blockCount: Count.describe('blocks sealed in the space'),
        blockSize: z.number().int().min(1).max(200).describe('turns per block'),
        decayLambda: z.number().min(0).max(5).describe('block fading rate λ'),
      }),
    ),
    nextOffset: counter('the `offset` of the next page').nullable(),
  }),
  'One page of the spaces of the API key’s tenant, by id.',
  {
    spaces: [{ spaceId: SPACE, turnCounter: 5, blockCount: 3, blockSize: 2, decayLambda: 0.3 }],
    nextOffset: null,
  },
);
export type SpaceListReply = z.infer<typeof SpaceListReply>;

export const ThreadListReply = responseSchema(
  z.object({
    spaceId: z.string(),
    threads: z.array(
      z.object({
        threadId: z.string(),
        turnCount: Count.describe('turns recorded in the thread'),
        readyBlocks: Count.describe('blocks of the thread that are ready (summarised)'),
      }),
    ),
    nextOffset: counter('the `offset` of the next page').nullable(),
  }),
  'One page of the threads (sessions) of the space, by id.',
  {
    spaceId: SPACE,
    threads: [
      { threadId: THREAD, turnCount: 5, readyBlocks: 2 },
      { threadId: AGENT_THREAD, turnCount: 1, readyBlocks: 0 },
    ],
    nextOffset: null,
  },
);
export type ThreadListReply = z.infer<typeof ThreadListReply>;
