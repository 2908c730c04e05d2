import { takeCodePoints, type SpaceRef } from '@stratagate/domain';
import { notFound, withinBytes } from '@stratagate/http';
import { searchIndex } from '@stratagate/store';
import { readModel, type QueryContext } from './context.ts';
import { searchEvents, todayOf, type EventSearchParams } from './event-search.ts';
import { openBatch } from './gate.ts';
import { searchGraph } from './graph-search.ts';
import type { GraphSearchReply } from './graph-search.schema.ts';
import { eventCard } from './memory-events.ts';
import { getEvents, VISIBLE_STATUSES } from './read-model/events.queries.ts';
import { blockMessagesOf, type BlockMessageRow } from './read-model/messages.queries.ts';
import { getSpace } from './read-model/spaces.queries.ts';
import { topicMembers } from './read-model/topics.queries.ts';
import type { EventSearchReply, RawSearchReply } from './search.schema.ts';
import { requireSpace } from './spaces.ts';

const SCORE_MEANING = 'BM25 relevance; orders results only, never a probability of truth';
const FUSED_SCORE_MEANING =
  'BM25 relevance and structured order, fused over the memory pools; orders results only, never a probability of truth';
const cut = takeCodePoints;

/**
 * MM-RET-6: BM25 over sealed raw messages, the scope applied before ranking; each hit comes with
 * its neighbours in the block. Opens an evidence batch holding the hits' `raw:` refs.
 */
export async function searchRawMessages(
  ctx: QueryContext,
  space: SpaceRef,
  input: { threadId: string; query: string; limit: number; scope: 'space' | 'session' },
): Promise<RawSearchReply> {
  const { threadId, query, limit, scope } = input;
  const db = readModel(ctx);
  // The space check and the search are independent (an unknown space finds nothing).
  const [spaceRow, ranked] = await Promise.all([
    getSpace(db, space),
    searchIndex(ctx.db, ctx.schema, {
      space,
      kind: 'message',
      query,
      limit,
      today: todayOf(ctx),
      ...(scope === 'session' ? { threadId } : {}),
      ...(ctx.postingCache ? { cache: ctx.postingCache } : {}),
    }),
  ]);
  if (!spaceRow) throw notFound('space', space.spaceId);
  const blockRows = await blockMessagesOf(
    db,
    space,
    ranked.map((r) => r.id),
  );
  const byId = new Map(blockRows.map((m) => [m.message_id, m]));
  const blocks = new Map<string, BlockMessageRow[]>();
  for (const row of blockRows) {
    const list = blocks.get(row.block_id!) ?? [];
    list.push(row);
    blocks.set(row.block_id!, list);
  }
  const card = (x: BlockMessageRow) => ({
    messageId: x.message_id,
    role: x.role,
    ...(x.name ? { name: x.name } : {}),
    content: cut(x.content, 500),
    createdAt: x.occurred_at,
  });
  const hits = ranked.flatMap((r) => {
    const m = byId.get(r.id);
    if (!m || !m.block_id) return [];
    const block = blocks.get(m.block_id) ?? [];
    const i = block.findIndex((x) => x.message_id === m.message_id);
    if (i < 0) return [];
    return [
      {
        ref: `raw:${m.block_id}:${m.message_id}:${i}`,
        blockId: m.block_id,
        threadId: m.thread_id,
        turnRange: [m.turn_from, m.turn_to],
        message: card(block[i]!),
        nearby: block.slice(Math.max(0, i - 1), i + 2).map(card),
        rankScore: r.score,
        scoreMeaning: SCORE_MEANING,
      },
    ];
  });
  const refs = hits.map((h) => h.ref);
  const { batchId } = await openBatch(ctx, space, {
    threadId,
    operation: 'search_raw',
    query,
    refs,
    retrievedEventIds: [],
  });
  return { batchId, evidenceRefs: refs, scope, space: space.spaceId, threadId, hits };
}

/**
 * MM-RET-3/4: memory events ranked by BM25, structured filters and RRF over the extracted and
 * agent pools. Opens an evidence batch holding the hits' `event:` refs.
 */
export async function searchMemoryEvents(
  ctx: QueryContext,
  space: SpaceRef,
  input: { threadId: string } & EventSearchParams,
): Promise<EventSearchReply> {
  const { threadId, topicId, ...rest } = input;
  const db = readModel(ctx);
  // MM-TOP-11: a topic scopes the search to its members before ranking; with no words the
  // members come earliest first, so paging through a topic reads it in order.
  const members = topicId === undefined ? undefined : await topicMembers(db, space, topicId);
  if (members === null) {
    await requireSpace(db, space);
    throw notFound('topic', topicId!);
  }
  const params =
    members === undefined
      ? rest
      : {
          ...rest,
          eventIds: rest.eventIds
            ? members.filter((id) => rest.eventIds!.includes(id))
            : [...members],
          ...(rest.query.trim() === '' && !rest.temporalIntent
            ? { temporalIntent: 'first' as const }
            : {}),
        };
  // The space read runs beside the ranking, which needs the turn counter only for a structured
  // order (an unknown space finds nothing and is answered 404 after).
  const spaceRead = getSpace(db, space);
  const turnCounter = spaceRead.then((row) => row?.turn_counter ?? 0);
  // A failed read is reported through Promise.all; the ranking may never await this one.
  turnCounter.catch(() => undefined);
  const [spaceRow, ranked] = await Promise.all([
    spaceRead,
    searchEvents(ctx, space, turnCounter, params),
  ]);
  if (!spaceRow) throw notFound('space', space.spaceId);
  const rows = await getEvents(
    db,
    space,
    ranked.map((r) => r.id),
    VISIBLE_STATUSES,
  );
  const byId = new Map(rows.map((r) => [r.event_id, r]));
  const ranks = ranked.flatMap((r) => {
    const row = byId.get(r.id);
    if (!row) return [];
    const card = eventCard(row, spaceRow.turn_counter);
    return [
      {
        ref: `event:${row.event_id}`,
        ...card,
        title: cut(card.title, 240),
        summary: cut(card.summary, 800),
        sourceTime: row.happened_start ?? row.mentioned_at ?? row.created_at,
        rankScore: r.score,
        scoreMeaning: FUSED_SCORE_MEANING,
      },
    ];
  });
  const { items: hits, truncated } = withinBytes(ranks);
  const refs = hits.map((h) => h.ref);
  const { batchId } = await openBatch(ctx, space, {
    threadId,
    operation: 'search_events',
    query: params.query,
    refs,
    retrievedEventIds: params.trackRetrieval ? hits.map((h) => h.id) : [],
  });
  const topic =
    members === undefined
      ? {}
      : {
          topic: {
            topicId: topicId!,
            totalSourceEvents: members.length,
            offset: params.offset,
            nextOffset:
              ranked.length >= params.limit && params.offset + params.limit < members.length
                ? params.offset + params.limit
                : null,
          },
        };
  return { batchId, evidenceRefs: refs, hits, truncated, ...topic };
}

/**
 * MM-RET-5: graph cards matched in the current and historical state. Opens an evidence batch
 * holding the hits' `graph-node:` refs, their provenance as the retrieved events.
 */
export async function searchGraphNodes(
  ctx: QueryContext,
  space: SpaceRef,
  input: { threadId: string; query: string; limit: number },
): Promise<GraphSearchReply> {
  await requireSpace(readModel(ctx), space);
  const { threadId, query, limit } = input;
  const { items: hits, truncated } = withinBytes(await searchGraph(ctx, space, { query, limit }));
  const refs = hits.map((h) => h.ref);
  const { batchId } = await openBatch(ctx, space, {
    threadId,
    operation: 'search_graph',
    query,
    refs,
    retrievedEventIds: [...new Set(hits.flatMap((h) => h.provenanceEventIds))],
  });
  return { batchId, evidenceRefs: refs, hits, truncated };
}
