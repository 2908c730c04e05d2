import type { Kysely } from 'kysely';
import {
  eventCategory,
  fallbackTopic,
  type EventType,
  type SpaceRef,
  type TopicCategory,
  type TopicParagraph,
  type TopicView,
} from '@stratagate/domain';
import { eventsWithoutTopic, inSpace, type ReadModelTables } from '@stratagate/store';

/**
 * The space's directory as the read model holds it (MM-TOP-4): every chapter with members, and
 * one fallback for each visible event no chapter holds yet.
 */
export async function loadTopicViews(
  db: Kysely<ReadModelTables>,
  space: SpaceRef,
): Promise<TopicView[]> {
  const [chapters, loose] = await Promise.all([
    db.selectFrom('topics').selectAll().where(inSpace(space)).execute(),
    eventsWithoutTopic(db, space)
      .select([
        'e.event_id',
        'e.title',
        'e.summary',
        'e.criticality',
        'e.event_type',
        'e.created_at',
      ])
      .execute(),
  ]);
  // A chapter invalidated into its members leaves them unassigned; they show as fallbacks until
  // it is rebuilt, and the chapter shows only what is left of it.
  const views: TopicView[] = chapters
    .filter((c) => c.source_event_ids.length > 0)
    .map((c) => ({
      id: c.topic_id,
      title: c.title,
      description: c.description,
      category: c.category as TopicCategory,
      createdAt: c.created_at,
      sourceEventIds: c.source_event_ids,
      sections: c.sections,
      paragraphs: c.paragraphs as TopicParagraph[],
      isFallback: false,
      pendingUpdate: c.pending_update,
    }));
  for (const e of loose) {
    views.push(
      fallbackTopic({
        id: e.event_id,
        title: e.title,
        summary: e.summary,
        category: eventCategory({
          criticality: e.criticality,
          temporal: { eventType: e.event_type as EventType },
        }),
        recordedAt: e.created_at,
      }),
    );
  }
  return views;
}

/** Each event's place in the space's log, for ordering sections by their earliest member. */
export async function memberRanks(
  db: Kysely<ReadModelTables>,
  space: SpaceRef,
  eventIds: readonly string[],
): Promise<Map<string, number>> {
  if (eventIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('memory_events')
    .select(['event_id', 'record_position'])
    .where(inSpace(space))
    .where('event_id', 'in', [...new Set(eventIds)])
    .execute();
  return new Map(rows.map((r) => [r.event_id, Number(r.record_position)]));
}
