import { sql, type Kysely } from 'kysely';
import {
  eventCategory,
  fallbackTopic,
  type EventType,
  type SpaceRef,
  type TopicCategory,
  type TopicEntry,
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
  options: { withAgentMemory: boolean } = { withAgentMemory: true },
): Promise<TopicView[]> {
  const [chapters, loose] = await Promise.all([
    loadChapters(db, space),
    looseEvents(db, space).execute(),
  ]);
  if (options.withAgentMemory) return [...chapters, ...loose.map(fallbackView)];
  // MM-TOP-4: without agent memory, a chapter holding any agent-recorded event is not shown;
  // its other events are listed on their own, and agent events nowhere.
  const agent = new Set(
    (
      await db
        .selectFrom('memory_events')
        .select('event_id')
        .where(inSpace(space))
        .where('pool', '=', 'agent')
        .execute()
    ).map((r) => r.event_id),
  );
  const kept = chapters.filter((c) => !c.sourceEventIds.some((id) => agent.has(id)));
  const released = chapters
    .filter((c) => c.sourceEventIds.some((id) => agent.has(id)))
    .flatMap((c) => c.sourceEventIds.filter((id) => !agent.has(id)));
  const releasedRows =
    released.length === 0
      ? []
      : await db
          .selectFrom('memory_events as e')
          .select([
            'e.event_id',
            'e.title',
            'e.summary',
            'e.criticality',
            'e.event_type',
            'e.created_at',
          ])
          .where(inSpace(space, 'e'))
          .where('e.event_id', 'in', released)
          .execute();
  return [
    ...kept,
    ...[...loose.filter((e) => !agent.has(e.event_id)), ...releasedRows].map(fallbackView),
  ];
}

/**
 * The directory recall shows (MM-TOP-10): every chapter and at most `maxFallbacks` fallbacks, the
 * others counted by category. So many topics cannot be listed one per line within the budget
 * anyway, and a space whose history is not yet in chapters must not make each recall read every
 * event of it.
 */
export async function loadDirectoryViews(
  db: Kysely<ReadModelTables>,
  space: SpaceRef,
  maxFallbacks: number,
): Promise<{ topics: TopicEntry[]; unlisted: Partial<Record<TopicCategory, number>> }> {
  const [chapters, loose] = await Promise.all([
    // Recall shows one line per chapter: members, sections, paragraphs and fingerprints stay unread.
    db
      .selectFrom('topics')
      .select(['topic_id', 'title', 'description', 'category', 'created_at', 'pending_update'])
      .where(inSpace(space))
      .where(sql<boolean>`jsonb_array_length(source_event_ids) > 0`)
      .execute()
      .then((rows) =>
        rows.map((c): TopicEntry => ({
          id: c.topic_id,
          title: c.title,
          description: c.description,
          category: c.category as TopicCategory,
          createdAt: c.created_at,
          isFallback: false,
          pendingUpdate: c.pending_update,
        })),
      ),
    // The first loose events by time, from the set the projection keeps (ADR 0054).
    looseEvents(db, space)
      .orderBy('l.created_at')
      .orderBy('l.event_id')
      .limit(maxFallbacks + 1)
      .execute(),
  ]);
  if (loose.length <= maxFallbacks) {
    return { topics: [...chapters, ...loose.map(fallbackView)], unlisted: {} };
  }
  const listed = loose.slice(0, maxFallbacks).map(fallbackView);
  const unlisted: Partial<Record<TopicCategory, number>> = {};
  const groups = await db
    .selectFrom('topic_loose_counts')
    .select(['criticality', 'event_type', 'n'])
    .where(inSpace(space))
    .execute();
  for (const g of groups) {
    const category = eventCategory({
      criticality: g.criticality,
      temporal: { eventType: g.event_type as EventType },
    });
    unlisted[category] = (unlisted[category] ?? 0) + Number(g.n);
  }
  for (const f of listed) unlisted[f.category] = (unlisted[f.category] ?? 0) - 1;
  return { topics: [...chapters, ...listed], unlisted };
}

// A chapter invalidated into its members leaves them unassigned; they show as fallbacks until
// it is rebuilt, and the chapter shows only what is left of it.
async function loadChapters(db: Kysely<ReadModelTables>, space: SpaceRef): Promise<TopicView[]> {
  const chapters = await db.selectFrom('topics').selectAll().where(inSpace(space)).execute();
  return chapters
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
}

function looseEvents(db: Kysely<ReadModelTables>, space: SpaceRef) {
  return eventsWithoutTopic(db, space).select([
    'e.event_id',
    'e.title',
    'e.summary',
    'e.criticality',
    'e.event_type',
    'e.created_at',
  ]);
}

function fallbackView(e: {
  event_id: string;
  title: string;
  summary: string;
  criticality: string;
  event_type: string;
  created_at: string;
}): TopicView {
  return fallbackTopic({
    id: e.event_id,
    title: e.title,
    summary: e.summary,
    category: eventCategory({
      criticality: e.criticality,
      temporal: { eventType: e.event_type as EventType },
    }),
    recordedAt: e.created_at,
  });
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

/**
 * A topic's member events, as the directory lists them (MM-TOP-11): a chapter's members, or the
 * one event of a `fallback:<eventId>`; null when the space has no such topic.
 */
export async function topicMembers(
  db: Kysely<ReadModelTables>,
  space: SpaceRef,
  topicId: string,
): Promise<string[] | null> {
  if (topicId.startsWith('fallback:')) {
    const eventId = topicId.slice('fallback:'.length);
    const loose = await eventsWithoutTopic(db, space)
      .select('e.event_id')
      .where('e.event_id', '=', eventId)
      .executeTakeFirst();
    return loose ? [eventId] : null;
  }
  const chapter = await db
    .selectFrom('topics')
    .select('source_event_ids')
    .where(inSpace(space))
    .where('topic_id', '=', topicId)
    .executeTakeFirst();
  return chapter && chapter.source_event_ids.length > 0 ? chapter.source_event_ids : null;
}
