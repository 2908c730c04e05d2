import type { SpaceRef } from '@stratagate/domain';
import { notFound } from '@stratagate/http';
import { boundViews, decayedViews } from './block-views.ts';
import type { ThreadContextReply } from './blocks.schema.ts';
import { readModel, type QueryContext } from './context.ts';
import { spaceProgress } from './gate.ts';
import { getThread, openTail, threadBlocks } from './read-model/threads.queries.ts';
import { requireSpace } from './spaces.ts';
import { boundSection, BOUNDS_REST, TEXT_BOUNDS } from './text-bounds.ts';

/** A thread's decayed ready blocks, its pending blocks and its open tail (MM-BLK-17..21). */
export async function getThreadContext(
  ctx: QueryContext,
  space: SpaceRef,
  input: { threadId: string },
): Promise<ThreadContextReply> {
  const db = readModel(ctx);
  const spaceRow = await requireSpace(db, space);
  const { threadId } = input;
  const thread = await getThread(db, space, threadId);
  if (!thread) throw notFound('thread', threadId);
  const blocks = await threadBlocks(db, space, threadId);
  const [views, tail] = await Promise.all([
    decayedViews(db, space, blocks, thread.ready_count, spaceRow.decay_lambda),
    openTail(db, space, threadId),
  ]);
  const blockSection = boundViews(views);
  const tailSection = boundSection(
    tail.map((m) => ({
      messageId: m.message_id,
      turnId: m.turn_id,
      threadTurn: m.thread_turn,
      role: m.role,
      ...(m.name ? { name: m.name } : {}),
      content: m.content,
      toolCalls: m.tool_calls,
      occurredAt: m.occurred_at,
    })),
    {
      id: (m) => m.messageId,
      // Tool calls count as text too: a 2 MB tool result is as long as a 2 MB message.
      text: (m) => m.content + (m.toolCalls.length > 0 ? JSON.stringify(m.toolCalls) : ''),
      withText: (m, text) => ({
        ...m,
        content: text.slice(0, m.content.length),
        toolCalls: m.toolCalls.map((call) => ({
          name: call.name,
          ...(call.arguments !== undefined ? { arguments: omitted(call.arguments) } : {}),
          ...(call.result !== undefined ? { result: omitted(call.result) } : {}),
        })),
      }),
    },
  );
  return {
    spaceId: space.spaceId,
    threadId,
    decayLambda: spaceRow.decay_lambda,
    newestReadyPosition: thread.ready_count,
    blocks: blockSection.items,
    pendingBlocks: blocks
      .filter((b) => b.status !== 'ready')
      .map((b) => ({
        id: b.block_id,
        turnRange: [b.turn_from, b.turn_to],
        summaryStatus: b.summary_status,
      })),
    openTail: {
      turns: new Set(tail.map((m) => m.turn_id)).size,
      messages: tailSection.items,
    },
    bounds: {
      ...TEXT_BOUNDS,
      blocks: { cut: blockSection.cut, omitted: blockSection.omitted },
      openTail: { cut: tailSection.cut, omitted: tailSection.omitted },
      rest: BOUNDS_REST,
    },
    projectedPosition: (await spaceProgress(ctx, space)).applied,
  };
}

/** A tool call's value in a cut message: how long it was, not what it said. */
function omitted(value: unknown): { omittedChars: number } {
  return { omittedChars: JSON.stringify(value)?.length ?? 0 };
}
