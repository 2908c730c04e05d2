import type { Kysely } from 'kysely';
import { inSpace, type SpaceScope } from './in-space.ts';
import type { ReadModelTables } from './tables.ts';

/**
 * The space's events no topic chapter holds yet (MM-TOP-4): active or superseded, without a
 * `topic_members` row. The topic job takes its batches from them, the directory shows them as
 * fallbacks; select what each needs (as `e.…`). Read from the set the core projection keeps
 * (ADR 0054), so a space whose events are nearly all in chapters is not read whole.
 */
export function eventsWithoutTopic(db: Kysely<ReadModelTables>, space: SpaceScope) {
  return db
    .selectFrom('topic_loose_events as l')
    .innerJoin('memory_events as e', (join) =>
      join
        .onRef('e.tenant_id', '=', 'l.tenant_id')
        .onRef('e.space_id', '=', 'l.space_id')
        .onRef('e.event_id', '=', 'l.event_id'),
    )
    .where(inSpace(space, 'l'));
}

/** How many events of the space no chapter holds (ADR 0054: counted by the projection). */
export async function countEventsWithoutTopic(
  db: Kysely<ReadModelTables>,
  space: SpaceScope,
): Promise<number> {
  const row = await db
    .selectFrom('topic_loose_counts')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('n'), eb.lit(0)).as('n'))
    .where(inSpace(space))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
