import { eventWeight, type SpaceRef } from '@stratagate/domain';
import { boundedPage, notFound } from '@stratagate/http';
import type { Kysely } from 'kysely';
import type { MemoryEventRow, ReadModelTables } from '@stratagate/store';
import { readModel, type QueryContext } from './context.ts';
import type { MemoryEventDetailReply, MemoryEventListReply } from './memory-events.schema.ts';
import { getEvent, listEvents, type EventPage } from './read-model/events.queries.ts';
import { messagesById } from './read-model/messages.queries.ts';
import { requireSpace } from './spaces.ts';

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

/** The source messages of an event (its provenance), in citation order. */
export async function sourceMessages(
  db: Kysely<ReadModelTables>,
  space: SpaceRef,
  ids: readonly string[],
) {
  return (await messagesById(db, space, ids)).map((m) => ({
    messageId: m.message_id,
    role: m.role,
    ...(m.name ? { name: m.name } : {}),
    content: m.content,
    occurredAt: m.occurred_at,
    threadId: m.thread_id,
    threadTurn: m.thread_turn,
  }));
}

/** One page of the space's memory events, newest source block first, bounded in bytes. */
export async function listMemoryEvents(
  ctx: QueryContext,
  space: SpaceRef,
  page: EventPage,
): Promise<MemoryEventListReply> {
  const db = readModel(ctx);
  const spaceRow = await requireSpace(db, space);
  const rows = await listEvents(db, space, page);
  const cards = boundedPage(
    rows.map((r) => eventCard(r, spaceRow.turn_counter)),
    page,
  );
  return {
    spaceId: space.spaceId,
    events: cards.items,
    nextOffset: cards.nextOffset,
    truncated: cards.truncated,
  };
}

/** One memory event with its source messages. */
export async function getMemoryEvent(
  ctx: QueryContext,
  space: SpaceRef,
  input: { eventId: string },
): Promise<MemoryEventDetailReply> {
  const db = readModel(ctx);
  const spaceRow = await requireSpace(db, space);
  const row = await getEvent(db, space, input.eventId);
  if (!row) throw notFound('memory_event', input.eventId);
  return {
    ...eventCard(row, spaceRow.turn_counter),
    sources: await sourceMessages(db, space, row.source_message_ids),
  };
}
