import { formatRef, type SpaceRef } from '@stratagate/domain';
import { boundViews, decayedViews, type BlockView } from './block-views.ts';
import type { ListBlocksReply } from './blocks.schema.ts';
import { readModel, type QueryContext } from './context.ts';
import { openBatch } from './gate.ts';
import {
  getThread,
  newestReadyBlocks,
  openTail,
  spaceBlockThreads,
  threadBlocks,
  threadsById,
} from './read-model/threads.queries.ts';
import { requireSpace } from './spaces.ts';
import { BOUNDS_REST, TEXT_BOUNDS } from './text-bounds.ts';

/**
 * MM-RET-6 block views for an agent: the thread's ready blocks (scope `session`) or the space's
 * newest ready blocks across its threads (scope `space`), each at its decayed level, with the
 * diagnostics that say why a list is empty. Citable evidence (MM-GATE-2): an evidence batch
 * holding each view's `block:<id>:level:<L>` opens in the thread.
 */
export async function listBlocks(
  ctx: QueryContext,
  space: SpaceRef,
  input: { threadId: string; scope: 'session' | 'space'; limit: number },
): Promise<ListBlocksReply> {
  const db = readModel(ctx);
  const spaceRow = await requireSpace(db, space);
  const { threadId, scope } = input;
  const [thread, tail, perThread] = await Promise.all([
    getThread(db, space, threadId),
    openTail(db, space, threadId),
    spaceBlockThreads(db, space),
  ]);
  let views: BlockView[] = [];
  if (scope === 'session') {
    const blocks = thread ? await threadBlocks(db, space, threadId) : [];
    views = thread
      ? await decayedViews(db, space, blocks, thread.ready_count, spaceRow.decay_lambda)
      : [];
    views = views.slice(-input.limit);
  } else {
    const newest = await newestReadyBlocks(db, space, input.limit);
    const threads = await threadsById(db, space, [...new Set(newest.map((b) => b.thread_id))]);
    const fadedPerThread = await Promise.all(
      threads.map((t) =>
        decayedViews(
          db,
          space,
          newest.filter((b) => b.thread_id === t.thread_id).reverse(),
          t.ready_count,
          spaceRow.decay_lambda,
        ),
      ),
    );
    // Oldest first, as every block list: by the space turn each block ends at.
    const order = new Map(newest.map((b, i) => [b.block_id, -i]));
    views = fadedPerThread.flat().sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  }
  const section = boundViews(views);
  const spaceBlockCount = perThread.reduce((n, t) => n + t.blocks, 0);
  const refs = section.items.map((v) => formatRef({ kind: 'block', id: v.id, level: v.level }));
  const { batchId } = await openBatch(ctx, space, {
    threadId,
    operation: 'list_blocks',
    query: scope,
    refs,
    retrievedEventIds: [],
  });
  return {
    batchId,
    evidenceRefs: refs,
    scope,
    spaceId: space.spaceId,
    threadId,
    blocks: section.items,
    blockCount: views.length,
    spaceBlockCount,
    spaceThreadIds: perThread.map((t) => t.threadId),
    openTailCount: tail.length,
    emptyReason:
      views.length > 0
        ? null
        : spaceBlockCount === 0
          ? tail.length > 0
            ? 'open_tail_pending'
            : 'no_blocks_in_space'
          : scope === 'session'
            ? perThread.some((t) => t.threadId === threadId)
              ? 'open_tail_pending'
              : 'blocks_exist_in_other_threads'
            : 'open_tail_pending',
    bounds: {
      ...TEXT_BOUNDS,
      blocks: { cut: section.cut, omitted: section.omitted },
      openTail: { cut: [], omitted: 0 },
      rest: BOUNDS_REST,
    },
  };
}
