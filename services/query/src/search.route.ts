import { z } from 'zod';
import {
  errorResponses,
  IdParam,
  notFound,
  SpaceIdParam,
  tenantOf,
  type TypedApp,
} from '@stratagate/http';
import { takeCodePoints } from '@stratagate/domain';
import { searchIndex } from '@stratagate/store';
import { EventSearchParams, searchEvents } from './event-search.ts';
import { openBatch, type EvidenceContext } from './evidence.service.ts';
import { eventCard } from './memory-events.route.ts';
import { getEvents, getSpace, rm } from './read-model.queries.ts';
import { EventSearchReply, RawSearchBody, RawSearchReply } from './search.schema.ts';

const ThreadParams = z.object({ spaceId: SpaceIdParam, threadId: IdParam });
const SCORE_MEANING = 'BM25 relevance; orders results only, never a probability of truth';
const FUSED_SCORE_MEANING =
  'reciprocal-rank fusion of BM25, structured filters and pools; orders results only, never a probability of truth';
const cut = takeCodePoints;
const SPACE_NOT_FOUND =
  'The space does not exist in the tenant of the API key (`space_not_found`).';

/**
 * Agent retrieval (MM-RET-3/6): ranked in Postgres by the search index, scope applied before
 * ranking; every call opens an evidence batch whose refs the agent assesses and adopts.
 */
export function searchRoutes(ctx: EvidenceContext) {
  return (app: TypedApp) => {
    app.post(
      '/v1/spaces/:spaceId/threads/:threadId/search/raw',
      {
        schema: {
          tags: ['gate'],
          summary: 'Search sealed raw messages (BM25); opens an evidence batch',
          params: ThreadParams,
          body: RawSearchBody,
          response: {
            200: RawSearchReply,
            ...errorResponses({ 404: SPACE_NOT_FOUND, 413: true }),
          },
        },
      },
      async (request) => {
        const space = { tenantId: tenantOf(request), spaceId: request.params.spaceId };
        const { threadId } = request.params;
        const db = rm(ctx.db, ctx.schema);
        const { query, limit, scope } = request.body;
        // The space check and the search are independent (an unknown space finds nothing).
        const [spaceRow, ranked] = await Promise.all([
          getSpace(db, space),
          searchIndex(ctx.db, ctx.schema, {
            space,
            kind: 'message',
            query,
            limit,
            ...(scope === 'session' ? { threadId } : {}),
            ...(ctx.postingCache ? { cache: ctx.postingCache } : {}),
          }),
        ]);
        if (!spaceRow) throw notFound('space', space.spaceId);
        const ids = ranked.map((r) => r.id);
        // Every message of the hits' blocks in one query, in block order: the hit itself and its
        // neighbours.
        const blockRows =
          ids.length === 0
            ? []
            : await db
                .selectFrom('messages as m')
                .innerJoin('turns as t', (j) =>
                  j
                    .onRef('t.tenant_id', '=', 'm.tenant_id')
                    .onRef('t.space_id', '=', 'm.space_id')
                    .onRef('t.turn_id', '=', 'm.turn_id'),
                )
                .innerJoin('blocks as b', (j) =>
                  j
                    .onRef('b.tenant_id', '=', 't.tenant_id')
                    .onRef('b.space_id', '=', 't.space_id')
                    .onRef('b.block_id', '=', 't.block_id'),
                )
                .select([
                  't.block_id',
                  'b.turn_from',
                  'b.turn_to',
                  'm.message_id',
                  'm.thread_id',
                  'm.role',
                  'm.name',
                  'm.content',
                  'm.occurred_at',
                ])
                .where('t.tenant_id', '=', space.tenantId)
                .where('t.space_id', '=', space.spaceId)
                .where('t.block_id', 'in', (sub) =>
                  sub
                    .selectFrom('messages as hm')
                    .innerJoin('turns as ht', (j) =>
                      j
                        .onRef('ht.tenant_id', '=', 'hm.tenant_id')
                        .onRef('ht.space_id', '=', 'hm.space_id')
                        .onRef('ht.turn_id', '=', 'hm.turn_id'),
                    )
                    .select('ht.block_id')
                    .where('hm.tenant_id', '=', space.tenantId)
                    .where('hm.space_id', '=', space.spaceId)
                    .where('hm.message_id', 'in', ids),
                )
                .orderBy('t.block_id')
                .orderBy('m.thread_turn')
                .orderBy('m.seq')
                .execute();
        const byId = new Map(blockRows.map((m) => [m.message_id, m]));
        const hits = [];
        const blocks = new Map<string, typeof blockRows>();
        for (const row of blockRows) {
          const list = blocks.get(row.block_id!) ?? [];
          list.push(row);
          blocks.set(row.block_id!, list);
        }
        for (const r of ranked) {
          const m = byId.get(r.id);
          if (!m || !m.block_id) continue;
          const block = blocks.get(m.block_id) ?? [];
          const i = block.findIndex((x) => x.message_id === m.message_id);
          if (i < 0) continue;
          const card = (x: (typeof block)[number]) => ({
            messageId: x.message_id,
            role: x.role,
            ...(x.name ? { name: x.name } : {}),
            content: cut(x.content, 500),
            createdAt: x.occurred_at,
          });
          hits.push({
            ref: `raw:${m.block_id}:${m.message_id}:${i}`,
            blockId: m.block_id,
            threadId: m.thread_id,
            turnRange: [m.turn_from, m.turn_to],
            message: card(block[i]!),
            nearby: block.slice(Math.max(0, i - 1), i + 2).map(card),
            rankScore: r.score,
            scoreMeaning: SCORE_MEANING,
          });
        }
        const refs = hits.map((h) => h.ref);
        const { batchId } = await openBatch(ctx, space, {
          threadId,
          operation: 'search_raw',
          query,
          refs,
          retrievedEventIds: [],
        });
        return { batchId, evidenceRefs: refs, scope, space: space.spaceId, threadId, hits };
      },
    );

    app.post(
      '/v1/spaces/:spaceId/threads/:threadId/search/events',
      {
        schema: {
          tags: ['gate'],
          summary:
            'Search memory events (BM25, structured filters, RRF over the extracted and agent pools); opens an evidence batch',
          params: ThreadParams,
          body: EventSearchParams,
          response: {
            200: EventSearchReply,
            ...errorResponses({ 404: SPACE_NOT_FOUND, 413: true }),
          },
        },
      },
      async (request) => {
        const space = { tenantId: tenantOf(request), spaceId: request.params.spaceId };
        const { threadId } = request.params;
        const db = rm(ctx.db, ctx.schema);
        // The space read runs beside the ranking, which needs the turn counter only for a
        // structured order (an unknown space finds nothing and is answered 404 after).
        const spaceRead = getSpace(db, space);
        const turnCounter = spaceRead.then((row) => row?.turn_counter ?? 0);
        // A failed read is reported through Promise.all; the ranking may never await this one.
        turnCounter.catch(() => undefined);
        const [spaceRow, ranked] = await Promise.all([
          spaceRead,
          searchEvents(ctx, space, turnCounter, request.body),
        ]);
        if (!spaceRow) throw notFound('space', space.spaceId);
        const rows = await getEvents(
          db,
          space,
          ranked.map((r) => r.id),
          ['active', 'superseded'],
        );
        const byId = new Map(rows.map((r) => [r.event_id, r]));
        const hits = ranked.flatMap((r) => {
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
        const refs = hits.map((h) => h.ref);
        const { batchId } = await openBatch(ctx, space, {
          threadId,
          operation: 'search_events',
          query: request.body.query,
          refs,
          retrievedEventIds: request.body.trackRetrieval ? hits.map((h) => h.id) : [],
        });
        return { batchId, evidenceRefs: refs, hits };
      },
    );
  };
}
