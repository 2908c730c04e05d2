import {
  decideBlockExpansion,
  decideOpenBatch,
  formatRef,
  parseLevel,
  type BlockLevel,
  type ExpandBlockCommand,
  type SpaceRef,
} from '@stratagate/domain';
import { AppError, notFound } from '@stratagate/http';
import type { BlockRow } from '@stratagate/store';
import { blockView, renderedView } from './block-views.ts';
import type { BlockReply, ExpandBlockReply } from './blocks.schema.ts';
import { readModel, type QueryContext } from './context.ts';
import { getBlock } from './read-model/blocks.queries.ts';
import { getThread } from './read-model/threads.queries.ts';
import { requireSpace } from './spaces.ts';

/** A block just sealed or lifted: no fading yet. */
const FRESH = { age: 0, weight: 1 } as const;

/** The state of a block's derivation jobs, as every block answer shows it. */
function jobStates(block: BlockRow) {
  return {
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
}

/** A block and its decayed view now: what reading and expanding a block start from. */
async function loadBlock(ctx: QueryContext, space: SpaceRef, blockId: string) {
  const db = readModel(ctx);
  const spaceRow = await requireSpace(db, space);
  const block = await getBlock(db, space, blockId);
  if (!block) throw notFound('block', blockId);
  const current = async () => {
    const thread = await getThread(db, space, block.thread_id);
    return blockView(block, thread?.ready_count ?? 0, spaceRow.decay_lambda);
  };
  return { block, current };
}

/**
 * One block at a chosen level, by default its decayed one. A pending block has L3–L5 from its
 * seal on, but no L0–L2 until its summary job succeeded (`block_not_ready`).
 */
export async function readBlock(
  ctx: QueryContext,
  space: SpaceRef,
  input: { blockId: string; level?: string | undefined },
): Promise<BlockReply> {
  const { block, current } = await loadBlock(ctx, space, input.blockId);
  const jobs = jobStates(block);
  const requested = input.level ? parseLevel(input.level) : null;
  if (block.status !== 'ready') {
    const level = (requested ?? 5) as BlockLevel;
    if (level < 3) {
      throw new AppError(
        409,
        'block_not_ready',
        `block '${block.block_id}' has no L0–L2 yet`,
        jobs,
      );
    }
    return { ...renderedView(block, level, FRESH), ...jobs };
  }
  const view = await current();
  if (requested === null) return { ...view, ...jobs };
  return { ...renderedView(block, requested, view), currentLevel: view.level, ...jobs };
}

/**
 * MM-BLK-20: lifts a ready block to a more detailed level; its fading starts over. The block is
 * read evidence (MM-GATE-2): an evidence batch holding `block:<id>:level:<L>` opens in the
 * given thread (by default the block's own).
 */
export async function expandBlock(
  ctx: QueryContext,
  space: SpaceRef,
  input: { blockId: string; threadId?: string | undefined } & ExpandBlockCommand,
): Promise<ExpandBlockReply> {
  const { block, current } = await loadBlock(ctx, space, input.blockId);
  if (block.status !== 'ready') {
    throw new AppError(
      409,
      'block_not_ready',
      `block '${block.block_id}' is not ready for decay or expansion`,
    );
  }
  const view = await current();
  const [record] = decideBlockExpansion(
    { id: block.block_id, threadId: block.thread_id, currentLevel: view.level },
    input,
  );
  const toLevel = record.data.toLevel as BlockLevel;
  // The lift and its evidence batch (MM-GATE-2) are appended together.
  const ref = formatRef({ kind: 'block', id: block.block_id, level: toLevel });
  const outcome = await ctx.writer.write(
    space,
    { occurredAt: ctx.now().toISOString() },
    (state) => [
      record,
      ...decideOpenBatch(state, {
        threadId: input.threadId ?? block.thread_id,
        operation: 'expand_block',
        query: block.block_id,
        refs: [ref],
        retrievedEventIds: [],
      }),
    ],
  );
  const [lifted, opened] = outcome.status === 'appended' ? outcome.records : [];
  return {
    ...renderedView(block, toLevel, FRESH),
    fromLevel: view.level,
    position: lifted?.position ?? null,
    batchId: (opened?.data as { batchId: string } | undefined)?.batchId ?? '',
    evidenceRefs: [ref],
  };
}
