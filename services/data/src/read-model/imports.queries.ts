import type { SpaceRef } from '@stratagate/domain';
import { inSpace, readModelDb, type AnyDb } from '@stratagate/store';

export interface EventSummaryRow {
  event_id: string;
  title: string;
  summary: string;
  status: string;
}

/** Title, summary and status of the space's events among `ids`, in no particular order. */
export async function eventSummaries(
  db: AnyDb,
  schema: string,
  space: SpaceRef,
  ids: readonly string[],
): Promise<EventSummaryRow[]> {
  if (ids.length === 0) return [];
  return readModelDb(db, schema)
    .selectFrom('memory_events')
    .select(['event_id', 'title', 'summary', 'status'])
    .where(inSpace(space))
    .where('event_id', 'in', [...ids])
    .execute();
}
