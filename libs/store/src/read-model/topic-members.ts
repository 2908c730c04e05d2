import type { Kysely } from 'kysely';
import { inSpace, type SpaceScope } from './in-space.ts';
import type { ReadModelTables } from './tables.ts';

/**
 * The space's events no topic chapter holds yet (MM-TOP-4): active or superseded, without a
 * `topic_members` row. The topic job takes its batches from them, the directory shows them as
 * fallbacks, the status counts them; select what each needs.
 */
export function eventsWithoutTopic(db: Kysely<ReadModelTables>, space: SpaceScope) {
  return db
    .selectFrom('memory_events as e')
    .where(inSpace(space, 'e'))
    .where('e.status', 'in', ['active', 'superseded'])
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('topic_members as m')
            .select('m.event_id')
            .whereRef('m.tenant_id', '=', 'e.tenant_id')
            .whereRef('m.space_id', '=', 'e.space_id')
            .whereRef('m.event_id', '=', 'e.event_id'),
        ),
      ),
    );
}
