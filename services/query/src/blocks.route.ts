import { z } from 'zod';
import {
  parseLevel,
  resolveExpandTarget,
  type BlockLevel,
  type SpaceRef,
} from '@stratagate/domain';
import {
  AppError,
  errorResponses,
  IdParam,
  notFound,
  SpaceIdParam,
  tenantOf,
  type TypedApp,
} from '@stratagate/http';
import { newRecord, type MessageLog } from '@stratagate/log';
import type { AnyDb, PostingCache } from '@stratagate/store';
import { blockView, decayedViews, renderedView } from './block-views.ts';
import {
  BLOCK_NOT_EXPANDABLE_EXAMPLE,
  BLOCK_NOT_READY_EXAMPLE,
  BlockReply,
  ExpandBlockBody,
  ExpandBlockReply,
  SpaceStatusReply,
  ThreadContextReply,
} from './blocks.schema.ts';
import {
  getBlock,
  getSpace,
  getThread,
  jobCounts,
  openTail,
  rm,
  threadBlocks,
} from './read-model.queries.ts';
import { recordAppended } from '@stratagate/telemetry';

export interface QueryContext {
  db: AnyDb;
  log: MessageLog;
  schema: string;
  now: () => Date;
  /**
   * How far the read model has got for a space: a log position such that every record of the
   * space at or below it is applied (clients wait for their own writes against it). On a log with
   * a global order this is the global checkpoint; on Kafka, the space's last applied record.
   */
  projectedPosition: (space: SpaceRef) => Promise<number>;
  /** The matching head: global on a log with a global order, else the space's last record. */
  logPosition: (space: SpaceRef) => Promise<number>;
  /** The process's posting cache (ADR 0018); none: every search reads its postings whole. */
  postingCache?: PostingCache;
}

const LevelQuery = z
  .union([z.enum(['L0', 'L1', 'L2', 'L3', 'L4', 'L5']), z.enum(['0', '1', '2', '3', '4', '5'])])
  .describe('L0 title+tags, L1 summary, L2 key points, L3 condensed, L4 readable, L5 raw');

const SPACE_NOT_FOUND =
  'The space does not exist in the tenant of the API key (`space_not_found`).';

export function queryRoutes(ctx: QueryContext) {
  const spaceOf = (tenantId: string, spaceId: string): SpaceRef => ({ tenantId, spaceId });

  async function requireSpace(space: SpaceRef) {
    const row = await getSpace(rm(ctx.db, ctx.schema), space);
    if (!row) throw notFound('space', space.spaceId);
    return row;
  }

  return (app: TypedApp) => {
    app.get(
      '/v1/spaces/:spaceId/threads/:threadId/context',
      {
        schema: {
          tags: ['query'],
          summary: "A thread's decayed blocks and its open tail",
          description:
            'Ready blocks at the level their fading gives (MM-BLK-17..21), oldest first, plus the unsealed messages. Pending blocks are listed by id only: they age nothing and cannot be expanded yet.',
          params: z.object({ spaceId: SpaceIdParam, threadId: IdParam }),
          response: {
            200: ThreadContextReply,
            ...errorResponses({
              404: 'The space or the thread does not exist (`space_not_found`, `thread_not_found`).',
            }),
          },
        },
      },
      async (request) => {
        const space = spaceOf(tenantOf(request), request.params.spaceId);
        const spaceRow = await requireSpace(space);
        const db = rm(ctx.db, ctx.schema);
        const { threadId } = request.params;
        const thread = await getThread(db, space, threadId);
        if (!thread) throw notFound('thread', threadId);
        const blocks = await threadBlocks(db, space, threadId);
        const [views, tail] = await Promise.all([
          decayedViews(db, space, blocks, thread.ready_count, spaceRow.decay_lambda),
          openTail(db, space, threadId),
        ]);
        return {
          spaceId: space.spaceId,
          threadId,
          decayLambda: spaceRow.decay_lambda,
          newestReadyPosition: thread.ready_count,
          blocks: views,
          pendingBlocks: blocks
            .filter((b) => b.status !== 'ready')
            .map((b) => ({
              id: b.block_id,
              turnRange: [b.turn_from, b.turn_to],
              summaryStatus: b.summary_status,
            })),
          openTail: {
            turns: new Set(tail.map((m) => m.turn_id)).size,
            messages: tail.map((m) => ({
              messageId: m.message_id,
              turnId: m.turn_id,
              threadTurn: m.thread_turn,
              role: m.role,
              ...(m.name ? { name: m.name } : {}),
              content: m.content,
              toolCalls: m.tool_calls,
              occurredAt: m.occurred_at,
            })),
          },
          projectedPosition: await ctx.projectedPosition(space),
        };
      },
    );

    app.get(
      '/v1/spaces/:spaceId/blocks/:blockId',
      {
        schema: {
          tags: ['query'],
          summary: 'One block at a chosen level (default: its current decayed level)',
          params: z.object({ spaceId: SpaceIdParam, blockId: IdParam }),
          querystring: z.object({ level: LevelQuery.optional() }),
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
      async (request) => {
        const space = spaceOf(tenantOf(request), request.params.spaceId);
        const spaceRow = await requireSpace(space);
        const db = rm(ctx.db, ctx.schema);
        const block = await getBlock(db, space, request.params.blockId);
        if (!block) throw notFound('block', request.params.blockId);
        const thread = await getThread(db, space, block.thread_id);
        const base = {
          status: block.status,
          summaryStatus: block.summary_status,
          summaryAttempts: block.summary_attempts,
          summaryNextRetryAt: block.summary_next_retry_at?.toISOString() ?? null,
          summaryLastError: block.summary_last_error,
          extractionStatus: block.extraction_status,
          extractionAttempts: block.extraction_attempts,
          extractionNextRetryAt: block.extraction_next_retry_at?.toISOString() ?? null,
          extractionLastError: block.extraction_last_error,
          eventCount: block.event_count,
          graphStatus: block.graph_status,
          graphAttempts: block.graph_attempts,
          graphLastError: block.graph_last_error,
        };
        const requested = request.query.level ? parseLevel(request.query.level) : null;
        if (block.status !== 'ready') {
          // L3–L5 exist from the seal on; L0–L2 only once the summary job succeeded.
          const level = (requested ?? 5) as BlockLevel;
          if (level < 3) {
            throw new AppError(
              409,
              'block_not_ready',
              `block '${block.block_id}' has no L0–L2 yet`,
              base,
            );
          }
          return { ...renderedView(block, level, 0), ...base };
        }
        const current = blockView(block, thread?.ready_count ?? 0, spaceRow.decay_lambda);
        if (requested === null) return { ...current, ...base };
        return {
          ...renderedView(block, requested, current.age),
          currentLevel: current.level,
          ...base,
        };
      },
    );

    app.post(
      '/v1/spaces/:spaceId/blocks/:blockId/expand',
      {
        schema: {
          tags: ['query'],
          summary: 'Lift a block to a more detailed level; its fading starts over (MM-BLK-20)',
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
      async (request) => {
        const space = spaceOf(tenantOf(request), request.params.spaceId);
        const spaceRow = await requireSpace(space);
        const db = rm(ctx.db, ctx.schema);
        const block = await getBlock(db, space, request.params.blockId);
        if (!block) throw notFound('block', request.params.blockId);
        if (block.status !== 'ready') {
          throw new AppError(
            409,
            'block_not_ready',
            `block '${block.block_id}' is not ready for decay or expansion`,
          );
        }
        const thread = await getThread(db, space, block.thread_id);
        const current = blockView(block, thread?.ready_count ?? 0, spaceRow.decay_lambda);
        const target = request.body.target ?? null;
        const toLevel = resolveExpandTarget(target, current.level) as BlockLevel;
        const result = await ctx.log.append(space, [
          newRecord(
            space,
            {
              type: 'BlockExpanded',
              data: {
                blockId: block.block_id,
                threadId: block.thread_id,
                target,
                fromLevel: current.level,
                toLevel,
                source: request.body.source,
              },
            },
            { occurredAt: ctx.now().toISOString() },
          ),
        ]);
        if (result.status === 'appended') recordAppended(ctx.log.name, result.records);
        const position = result.status === 'appended' ? result.records[0]!.position : null;
        return { ...renderedView(block, toLevel, 0), fromLevel: current.level, position };
      },
    );

    app.get(
      '/v1/spaces/:spaceId/status',
      {
        schema: {
          tags: ['query'],
          summary: 'Space counters, derivation job states and how far projection has got',
          params: z.object({ spaceId: SpaceIdParam }),
          response: { 200: SpaceStatusReply, ...errorResponses({ 404: SPACE_NOT_FOUND }) },
        },
      },
      async (request) => {
        const space = spaceOf(tenantOf(request), request.params.spaceId);
        // Positions first, counters after: when projectedPosition has reached logPosition, the
        // counters describe a state at least that recent, so "caught up and nothing pending"
        // can never pair new positions with counters from before the last records.
        const logPosition = await ctx.logPosition(space);
        const projectedPosition = await ctx.projectedPosition(space);
        const row = await requireSpace(space);
        const jobs = await jobCounts(rm(ctx.db, ctx.schema), space);
        const sum = (pred: (j: (typeof jobs)[number]) => boolean) =>
          jobs.filter(pred).reduce((n, j) => n + j.n, 0);
        return {
          spaceId: space.spaceId,
          blockSize: row.block_size,
          decayLambda: row.decay_lambda,
          turnCounter: row.turn_counter,
          blocks: {
            total: sum(() => true),
            ready: sum((j) => j.status === 'ready'),
            pending: sum((j) => j.status === 'pending'),
          },
          summaryJobs: {
            pending: sum((j) => j.summary_status === 'pending'),
            succeeded: sum((j) => j.summary_status === 'succeeded'),
            failed: sum((j) => j.summary_status === 'failed'),
          },
          extractionJobs: {
            pending: sum((j) => j.extraction_status === 'pending'),
            succeeded: sum((j) => j.extraction_status === 'succeeded'),
            skipped: sum((j) => j.extraction_status === 'skipped'),
            failed: sum((j) => j.extraction_status === 'failed'),
          },
          graphJobs: {
            pending: sum((j) => j.graph_status === 'pending'),
            completed: sum((j) => j.graph_status === 'completed'),
            failed: sum((j) => j.graph_status === 'failed'),
          },
          projectedPosition,
          logPosition,
        };
      },
    );
  };
}
