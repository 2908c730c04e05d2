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

/**
 * The profiles of the tenant that hold a proposal or a change said in the space, or in one of its
 * threads: what an erasure of that conversation has to rebuild.
 */
export async function profilesFromConversation(
  db: AnyDb,
  schema: string,
  space: SpaceRef,
  threadId: string | null,
): Promise<string[]> {
  const rm = readModelDb(db, schema);
  const from = <T extends 'profile_proposals' | 'profile_history'>(table: T) => {
    let query = rm
      .selectFrom(table as 'profile_proposals')
      .select('profile_id')
      .where('tenant_id', '=', space.tenantId)
      .where('origin_space_id', '=', space.spaceId);
    if (threadId !== null) query = query.where('origin_thread_id', '=', threadId);
    return query;
  };
  const rows = await from('profile_proposals').union(from('profile_history')).execute();
  return rows.map((r) => r.profile_id);
}
