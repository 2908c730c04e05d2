import type { Kysely } from 'kysely';
import type { SpaceRef } from '@stratagate/domain';
import { inProfile, inSpace, type ProfileScope, type ReadModelTables } from '@stratagate/store';

/** The profile's row, or undefined while nothing was recorded for it. */
export async function getProfileRow(db: Kysely<ReadModelTables>, profile: ProfileScope) {
  return db.selectFrom('profiles').selectAll().where(inProfile(profile)).executeTakeFirst();
}

/** The profile a space reads (ADR 0050); undefined when the space does not exist. */
export async function spaceProfileId(
  db: Kysely<ReadModelTables>,
  space: SpaceRef,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('spaces')
    .select('profile_id')
    .where(inSpace(space))
    .executeTakeFirst();
  return row?.profile_id;
}

/** A page of the profile's changes, newest first; one row more tells a next page. */
export async function profileHistory(
  db: Kysely<ReadModelTables>,
  profile: ProfileScope,
  page: { field?: string | undefined; limit: number; offset: number },
) {
  let query = db.selectFrom('profile_history').selectAll().where(inProfile(profile));
  if (page.field) query = query.where('field', '=', page.field);
  return query
    .orderBy('seq', 'desc')
    .limit(page.limit + 1)
    .offset(page.offset)
    .execute();
}

/** A page of the profile's proposals, newest first; one row more tells a next page. */
export async function profileProposals(
  db: Kysely<ReadModelTables>,
  profile: ProfileScope,
  page: { status?: 'pending' | 'applied' | 'expired' | undefined; limit: number; offset: number },
) {
  let query = db.selectFrom('profile_proposals').selectAll().where(inProfile(profile));
  if (page.status) query = query.where('status', '=', page.status);
  return query
    .orderBy('position', 'desc')
    .orderBy('proposal_id')
    .limit(page.limit + 1)
    .offset(page.offset)
    .execute();
}

/** The thread's recorded turn count and, when `turnId` is recorded in it, that turn's number. */
export async function threadTurns(
  db: Kysely<ReadModelTables>,
  space: SpaceRef,
  threadId: string,
  turnId: string | null,
): Promise<{ turnCount: number; turn: number | null }> {
  const thread = await db
    .selectFrom('threads')
    .select('turn_count')
    .where(inSpace(space))
    .where('thread_id', '=', threadId)
    .executeTakeFirst();
  const turn = turnId
    ? await db
        .selectFrom('turns')
        .select('thread_turn')
        .where(inSpace(space))
        .where('turn_id', '=', turnId)
        .where('thread_id', '=', threadId)
        .executeTakeFirst()
    : undefined;
  return { turnCount: thread?.turn_count ?? 0, turn: turn?.thread_turn ?? null };
}

/**
 * The profile a space is bound to and its row (null while nothing was recorded for it): what
 * recall shows of it (MM-PRO-1). Undefined when the space does not exist.
 */
export async function boundProfile(db: Kysely<ReadModelTables>, space: SpaceRef) {
  return db
    .selectFrom('spaces as s')
    .leftJoin('profiles as p', (join) =>
      join.onRef('p.tenant_id', '=', 's.tenant_id').onRef('p.profile_id', '=', 's.profile_id'),
    )
    .select(['s.profile_id', 'p.revision', 'p.fields'])
    .where(inSpace(space, 's'))
    .executeTakeFirst();
}
