import { sql, type Kysely } from 'kysely';
import type { SpaceRef } from '@stratagate/domain';
import {
  inSpace,
  type MemoryEventRow,
  type MemoryEventStatus,
  type ReadModelTables,
} from '@stratagate/store';

/** Statuses that retrieval shows: superseded events stay visible as history (MM-EVT). */
export const VISIBLE_STATUSES: MemoryEventStatus[] = ['active', 'superseded'];

/** One memory event of the space; `statuses` narrows it (e.g. visible ones only). */
export async function getEvent(
  db: Kysely<ReadModelTables>,
  space: SpaceRef,
  eventId: string,
  statuses?: MemoryEventStatus[],
) {
  let q = db
    .selectFrom('memory_events')
    .selectAll()
    .where(inSpace(space))
    .where('event_id', '=', eventId);
  if (statuses) q = q.where('status', 'in', statuses);
  return q.executeTakeFirst();
}

/** Several memory events of the space in the given statuses (unordered). */
export async function getEvents(
  db: Kysely<ReadModelTables>,
  space: SpaceRef,
  eventIds: readonly string[],
  statuses: MemoryEventStatus[],
) {
  if (eventIds.length === 0) return [];
  return db
    .selectFrom('memory_events')
    .selectAll()
    .where(inSpace(space))
    .where('event_id', 'in', [...eventIds])
    .where('status', 'in', statuses)
    .execute();
}

export interface EventPage {
  status: MemoryEventStatus | 'all';
  blockId?: string | undefined;
  limit: number;
  offset: number;
}

/** A page of the space's events, newest source block first; one row more tells a next page. */
export async function listEvents(
  db: Kysely<ReadModelTables>,
  space: SpaceRef,
  page: EventPage,
): Promise<MemoryEventRow[]> {
  let q = db.selectFrom('memory_events').selectAll().where(inSpace(space));
  if (page.status !== 'all') q = q.where('status', '=', page.status);
  if (page.blockId) q = q.where('source_block_id', '=', page.blockId);
  return q
    .orderBy('block_sequence', 'desc')
    .orderBy('formed_turn', 'desc')
    .orderBy('event_id')
    .limit(page.limit + 1)
    .offset(page.offset)
    .execute();
}

/** The memory event columns recall weighs every candidate by (MM-WGT). */
export const WEIGHT_COLUMNS = [
  'event_id',
  'source_block_id',
  'status',
  'criticality',
  'mention_count',
  'last_adopted_turn',
  'pinned',
  'forced_cap',
] as const;
export type WeightRow = Pick<MemoryEventRow, (typeof WEIGHT_COLUMNS)[number]>;

/** The standing events (pinned or safety) with their weight columns (MM-RET-8). */
export async function standingEvents(
  db: Kysely<ReadModelTables>,
  space: SpaceRef,
): Promise<WeightRow[]> {
  return (
    db
      .selectFrom('memory_events')
      .select(WEIGHT_COLUMNS)
      .where(inSpace(space))
      .where('status', 'in', VISIBLE_STATUSES)
      // Literal, so the partial index memory_events_standing applies.
      .where(sql<boolean>`(pinned or criticality = 'safety')`)
      .execute()
  );
}

/** The weight columns of the visible events among `eventIds`. */
export async function eventWeights(
  db: Kysely<ReadModelTables>,
  space: SpaceRef,
  eventIds: readonly string[],
): Promise<WeightRow[]> {
  if (eventIds.length === 0) return [];
  return db
    .selectFrom('memory_events')
    .select(WEIGHT_COLUMNS)
    .where(inSpace(space))
    .where('event_id', 'in', [...eventIds])
    .where('status', 'in', VISIBLE_STATUSES)
    .execute();
}

/** The columns of a recall card, read only for the candidates recall may still take. */
export const CARD_COLUMNS = [
  'event_id',
  'title',
  'summary',
  'happened_start',
  'mentioned_at',
  'created_at',
  'temporal',
  'scope',
] as const;
export type CardRow = Pick<MemoryEventRow, (typeof CARD_COLUMNS)[number]>;

export async function eventCards(
  db: Kysely<ReadModelTables>,
  space: SpaceRef,
  eventIds: readonly string[],
): Promise<CardRow[]> {
  if (eventIds.length === 0) return [];
  return db
    .selectFrom('memory_events')
    .select(CARD_COLUMNS)
    .where(inSpace(space))
    .where('event_id', 'in', [...eventIds])
    .execute();
}

/** The status of each of `eventIds` the space holds. */
export async function eventStatuses(
  db: Kysely<ReadModelTables>,
  space: SpaceRef,
  eventIds: readonly string[],
): Promise<Map<string, MemoryEventStatus>> {
  if (eventIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('memory_events')
    .select(['event_id', 'status'])
    .where(inSpace(space))
    .where('event_id', 'in', [...eventIds])
    .execute();
  return new Map(rows.map((r) => [r.event_id, r.status]));
}
