import { sql, type Kysely } from 'kysely';
import type { SpaceRef } from '@stratagate/domain';
import {
  countEventsWithoutTopic,
  inSpace,
  type ReadModelTables,
  type SpaceRow,
} from '@stratagate/store';

/** The space's row (counters, settings), or undefined when the tenant has no such space. */
export async function getSpace(
  db: Kysely<ReadModelTables>,
  space: SpaceRef,
): Promise<SpaceRow | undefined> {
  return db.selectFrom('spaces').selectAll().where(inSpace(space)).executeTakeFirst();
}

/** Blocks of the space counted by their status and the status of each derivation job. */
export async function jobCounts(db: Kysely<ReadModelTables>, space: SpaceRef) {
  const rows = await db
    .selectFrom('blocks')
    .select(['status', 'summary_status', 'extraction_status', 'graph_status'])
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(inSpace(space))
    .groupBy(['status', 'summary_status', 'extraction_status', 'graph_status'])
    .execute();
  return rows.map((r) => ({ ...r, n: Number(r.n) }));
}

/**
 * Blocks of the space with a derivation job that has not reached a final state: pending, or
 * failed with a retry scheduled. A job waiting behind a summary that failed for good is final.
 */
export async function unsettledBlockCount(
  db: Kysely<ReadModelTables>,
  space: SpaceRef,
): Promise<number> {
  const row = await db
    .selectFrom('blocks')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(inSpace(space))
    .where((eb) =>
      eb.or([
        eb('summary_status', '=', 'pending'),
        eb.and([eb('summary_status', '=', 'failed'), eb('summary_next_retry_at', 'is not', null)]),
        eb.and([
          eb('summary_status', '=', 'succeeded'),
          eb.or([
            eb('extraction_status', '=', 'pending'),
            eb.and([
              eb('extraction_status', '=', 'failed'),
              eb('extraction_next_retry_at', 'is not', null),
            ]),
          ]),
        ]),
        eb('graph_status', '=', 'pending'),
        eb.and([eb('graph_status', '=', 'failed'), eb('graph_next_retry_at', 'is not', null)]),
      ]),
    )
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** A page of the tenant's spaces, by id; one row more tells a next page. */
export async function listSpaces(
  db: Kysely<ReadModelTables>,
  tenantId: string,
  page: { limit: number; offset: number },
): Promise<SpaceRow[]> {
  return db
    .selectFrom('spaces')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('space_id')
    .limit(page.limit + 1)
    .offset(page.offset)
    .execute();
}

/** MM-TOP: the space's topic work: events no chapter holds, chapters to rebuild, the job's state. */
export async function topicJobState(db: Kysely<ReadModelTables>, space: SpaceRef) {
  const [unassigned, pending, job] = await Promise.all([
    countEventsWithoutTopic(db, space),
    db
      .selectFrom('topics')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where(inSpace(space))
      .where('pending_update', '=', true)
      // A chapter all of whose members left is hidden from the directory; nothing is pending there.
      .where(sql<boolean>`jsonb_array_length(source_event_ids) > 0`)
      .executeTakeFirst(),
    db.selectFrom('topic_jobs').selectAll().where(inSpace(space)).executeTakeFirst(),
  ]);
  return {
    unassignedEvents: unassigned,
    pendingUpdate: Number(pending?.n ?? 0),
    job: job ?? null,
  };
}
