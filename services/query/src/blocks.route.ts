import { z } from 'zod';
import {
  errorResponses,
  IdParam,
  PageOffset,
  pageLimit,
  SpaceIdParam,
  spaceOf,
  type TypedApp,
} from '@stratagate/http';
import { expandBlock, readBlock } from './blocks.ts';
import { listBlocks } from './list-blocks.ts';
import {
  BLOCK_NOT_EXPANDABLE_EXAMPLE,
  BLOCK_NOT_READY_EXAMPLE,
  BlockReply,
  ListBlocksBody,
  ListBlocksReply,
  ExpandBlockBody,
  ExpandBlockReply,
  SpaceStatusReply,
  ThreadContextReply,
} from './blocks.schema.ts';
import { contextOf } from './context.ts';
import { listFailedJobs } from './failed-jobs.ts';
import { FailedJobsReply } from './failed-jobs.schema.ts';
import { getSpaceStatus } from './space-status.ts';
import { getThreadContext } from './thread-context.ts';

const LevelQuery = z
  .union([z.enum(['L0', 'L1', 'L2', 'L3', 'L4', 'L5']), z.enum(['0', '1', '2', '3', '4', '5'])])
  .describe('L0 title+tags, L1 summary, L2 key points, L3 condensed, L4 readable, L5 raw');

const SPACE_NOT_FOUND =
  'The space does not exist in the tenant of the API key (`space_not_found`).';

/** Thread context, blocks and their expansion, and the space's status. */
export function blockRoutes(app: TypedApp): void {
  app.get(
    '/v1/spaces/:spaceId/threads/:threadId/context',
    {
      schema: {
        tags: ['query'],
        operationId: 'getThreadContext',
        summary: "A thread's decayed blocks and its open tail",
        description:
          'Ready blocks at the level their fading gives, oldest first, plus the unsealed messages. Pending blocks are listed by id only: they age nothing and cannot be expanded yet. Conversation text is bounded (`bounds` says what was cut). A plain read that opens no evidence batch; an agent that will cite blocks lists them with `listBlocks`.',
        params: z.object({ spaceId: SpaceIdParam, threadId: IdParam }),
        response: {
          200: ThreadContextReply,
          ...errorResponses({
            404: 'The space or the thread does not exist (`space_not_found`, `thread_not_found`).',
          }),
        },
      },
    },
    (request) => getThreadContext(contextOf(request), spaceOf(request), request.params),
  );

  app.get(
    '/v1/spaces/:spaceId/blocks/:blockId',
    {
      schema: {
        tags: ['query'],
        operationId: 'getBlock',
        summary: 'One block at a chosen level (default: its current decayed level)',
        params: z.object({ spaceId: SpaceIdParam, blockId: IdParam }),
        querystring: z.strictObject({ level: LevelQuery.optional() }),
        response: {
          200: BlockReply,
          ...errorResponses({
            404: 'The space or the block does not exist (`space_not_found`, `block_not_found`).',
            409: {
              description:
                'The block is still pending and has no L0–L2 yet (`block_not_ready`); `details` holds its job states. L3–L5 exist from the seal on.',
              example: BLOCK_NOT_READY_EXAMPLE,
            },
          }),
        },
      },
    },
    (request) =>
      readBlock(contextOf(request), spaceOf(request), {
        blockId: request.params.blockId,
        level: request.query.level,
      }),
  );

  app.post(
    '/v1/spaces/:spaceId/blocks/:blockId/expand',
    {
      schema: {
        tags: ['query'],
        operationId: 'expandBlock',
        summary:
          'Lift a block to a more detailed level; its fading starts over; opens an evidence batch',
        params: z.object({ spaceId: SpaceIdParam, blockId: IdParam }),
        body: ExpandBlockBody,
        response: {
          200: ExpandBlockReply,
          ...errorResponses({
            404: 'The space or the block does not exist (`space_not_found`, `block_not_found`).',
            409: {
              description:
                'The block is still pending: it cannot decay or expand yet (`block_not_ready`).',
              example: BLOCK_NOT_EXPANDABLE_EXAMPLE,
            },
            413: true,
          }),
        },
      },
    },
    (request) =>
      expandBlock(contextOf(request), spaceOf(request), {
        blockId: request.params.blockId,
        target: request.body.target ?? null,
        source: request.body.source,
        threadId: request.body.threadId,
      }),
  );

  app.get(
    '/v1/spaces/:spaceId/status',
    {
      schema: {
        tags: ['query'],
        operationId: 'getSpaceStatus',
        summary:
          'Space counters, derivation job states, projection progress and whether all is settled',
        params: z.object({ spaceId: SpaceIdParam }),
        response: { 200: SpaceStatusReply, ...errorResponses({ 404: SPACE_NOT_FOUND }) },
      },
    },
    (request) => getSpaceStatus(contextOf(request), spaceOf(request)),
  );

  app.get(
    '/v1/spaces/:spaceId/jobs/failed',
    {
      schema: {
        tags: ['query'],
        operationId: 'listFailedJobs',
        summary: "The space's failed summary, extraction and graph jobs, to see why and retry",
        params: z.object({ spaceId: SpaceIdParam }),
        querystring: z.strictObject({ offset: PageOffset, limit: pageLimit(100, 50) }),
        response: { 200: FailedJobsReply, ...errorResponses({ 404: SPACE_NOT_FOUND }) },
      },
    },
    (request) => listFailedJobs(contextOf(request), spaceOf(request), request.query),
  );

  app.post(
    '/v1/spaces/:spaceId/threads/:threadId/blocks',
    {
      schema: {
        tags: ['gate'],
        operationId: 'listBlocks',
        summary: 'List block views for an agent; opens an evidence batch holding them',
        description:
          'The ready blocks of this thread (or the newest of the space) at their decayed level, with diagnostics saying why a list is empty. Unlike the thread context, this is a citable read: each view is in the batch as `block:<id>:level:<L>`.',
        params: z.object({ spaceId: SpaceIdParam, threadId: IdParam }),
        body: ListBlocksBody,
        response: {
          200: ListBlocksReply,
          ...errorResponses({ 404: SPACE_NOT_FOUND, 413: true }),
        },
      },
    },
    (request) =>
      listBlocks(contextOf(request), spaceOf(request), {
        threadId: request.params.threadId,
        ...request.body,
      }),
  );
}
