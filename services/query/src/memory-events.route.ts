import type { Kysely } from 'kysely';
import { z } from 'zod';
import { eventWeight, type SpaceRef } from '@stratagate/domain';
import {
  errorResponses,
  IdParam,
  notFound,
  SpaceIdParam,
  tenantOf,
  type TypedApp,
} from '@stratagate/http';
import type { MemoryEventRow, ReadModelTables } from '@stratagate/store';
import type { QueryContext } from './blocks.route.ts';
import { MemoryEventDetailReply, MemoryEventListReply } from './memory-events.schema.ts';
import { getEvent, getSpace, rm } from './read-model.queries.ts';

const ListQuery = z.object({
  status: z.enum(['active', 'superseded', 'forgotten', 'archived', 'all']).default('all'),
  blockId: IdParam.optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

/** A memory event as the API shows it: content, provenance, both times, relations, weight. */
export function eventCard(row: MemoryEventRow, currentTurn: number) {
  return {
    id: row.event_id,
    title: row.title,
    summary: row.summary,
    tags: row.tags,
    quotes: row.quotes,
    scope: row.scope,
    criticality: row.criticality,
    eventType: row.event_type,
    pool: row.pool,
    status: row.status,
    supersededBy: row.superseded_by,
    sourceBlockId: row.source_block_id,
    sourceMessageIds: row.source_message_ids,
    threadId: row.thread_id,
    temporal: row.temporal,
    conflictsWith: row.conflicts_with,
    catalogHints: row.catalog_hints,
    formedTurn: row.formed_turn,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    weight: {
      mentionCount: row.mention_count,
      lastAdoptedTurn: row.last_adopted_turn,
      lastRetrievedAt: row.last_retrieved_at,
      pinned: row.pinned,
      forcedCap: row.forced_cap,
      value: eventWeight({
        criticality: row.criticality,
        status: row.status,
        mentionCount: row.mention_count,
        lastAdoptedTurn: row.last_adopted_turn,
        currentTurn,
        pinned: row.pinned,
        forcedCap: row.forced_cap,
      }),
      meaning: 'ordering only; not a probability of truth',
    },
  };
}

export async function sourceMessages(db: Kysely<ReadModelTables>, space: SpaceRef, ids: string[]) {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('messages')
    .select(['message_id', 'role', 'name', 'content', 'occurred_at', 'thread_id', 'thread_turn'])
    .where('tenant_id', '=', space.tenantId)
    .where('space_id', '=', space.spaceId)
    .where('message_id', 'in', ids)
    .execute();
  const byId = new Map(rows.map((r) => [r.message_id, r]));
  return ids.flatMap((id) => {
    const m = byId.get(id);
    return m
      ? [
          {
            messageId: m.message_id,
            role: m.role,
            ...(m.name ? { name: m.name } : {}),
            content: m.content,
            occurredAt: m.occurred_at,
            threadId: m.thread_id,
            threadTurn: m.thread_turn,
          },
        ]
      : [];
  });
}

export function memoryEventRoutes(ctx: QueryContext) {
  return (app: TypedApp) => {
    app.get(
      '/v1/spaces/:spaceId/memory-events',
      {
        schema: {
          tags: ['query'],
          summary: 'List memory events of a space (newest source block first)',
          params: z.object({ spaceId: SpaceIdParam }),
          querystring: ListQuery,
          response: {
            200: MemoryEventListReply,
            ...errorResponses({
              404: 'The space does not exist in the tenant of the API key (`space_not_found`).',
            }),
          },
        },
      },
      async (request) => {
        const space = { tenantId: tenantOf(request), spaceId: request.params.spaceId };
        const db = rm(ctx.db, ctx.schema);
        const spaceRow = await getSpace(db, space);
        if (!spaceRow) throw notFound('space', space.spaceId);
        const q = request.query;
        let query = db
          .selectFrom('memory_events')
          .selectAll()
          .where('tenant_id', '=', space.tenantId)
          .where('space_id', '=', space.spaceId);
        if (q.status !== 'all') query = query.where('status', '=', q.status);
        if (q.blockId) query = query.where('source_block_id', '=', q.blockId);
        const rows = await query
          .orderBy('block_sequence', 'desc')
          .orderBy('formed_turn', 'desc')
          .orderBy('event_id')
          .limit(q.limit + 1)
          .offset(q.offset)
          .execute();
        return {
          spaceId: space.spaceId,
          events: rows.slice(0, q.limit).map((r) => eventCard(r, spaceRow.turn_counter)),
          nextOffset: rows.length > q.limit ? q.offset + q.limit : null,
        };
      },
    );

    app.get(
      '/v1/spaces/:spaceId/memory-events/:eventId',
      {
        schema: {
          tags: ['query'],
          summary: 'One memory event with its source messages (provenance)',
          params: z.object({ spaceId: SpaceIdParam, eventId: IdParam }),
          response: {
            200: MemoryEventDetailReply,
            ...errorResponses({
              404: 'The space or the event does not exist (`space_not_found`, `memory_event_not_found`).',
            }),
          },
        },
      },
      async (request) => {
        const space = { tenantId: tenantOf(request), spaceId: request.params.spaceId };
        const db = rm(ctx.db, ctx.schema);
        const spaceRow = await getSpace(db, space);
        if (!spaceRow) throw notFound('space', space.spaceId);
        const row = await getEvent(db, space, request.params.eventId);
        if (!row) throw notFound('memory_event', request.params.eventId);
        return {
          ...eventCard(row, spaceRow.turn_counter),
          sources: await sourceMessages(db, space, row.source_message_ids),
        };
      },
    );
  };
}
