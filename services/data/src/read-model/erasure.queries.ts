import type { SpaceRef } from '@stratagate/domain';
import { inSpace, readModelDb, type AnyDb } from '@stratagate/store';

/** Whether the space's read model has the memory event (in any status). */
export async function memoryEventExists(
  db: AnyDb,
  schema: string,
  space: SpaceRef,
  eventId: string,
): Promise<boolean> {
  const row = await readModelDb(db, schema)
    .selectFrom('memory_events')
    .select('event_id')
    .where(inSpace(space))
    .where('event_id', '=', eventId)
    .executeTakeFirst();
  return row !== undefined;
}
