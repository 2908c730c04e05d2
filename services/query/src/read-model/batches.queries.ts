import type { Kysely } from 'kysely';
import type { SpaceRef } from '@stratagate/domain';
import { inSpace, type EvidenceBatchRow, type ReadModelTables } from '@stratagate/store';

/** A batch of the thread by id, or the thread's latest batch when `batchId` is undefined. */
export async function getBatch(
  db: Kysely<ReadModelTables>,
  space: SpaceRef,
  threadId: string,
  batchId: string | undefined,
): Promise<EvidenceBatchRow | undefined> {
  let q = db
    .selectFrom('evidence_batches')
    .selectAll()
    .where(inSpace(space))
    .where('thread_id', '=', threadId);
  q = batchId ? q.where('batch_id', '=', batchId) : q.orderBy('opened_position', 'desc').limit(1);
  return q.executeTakeFirst();
}

/** The thread's batches, oldest first, in one status or all; a page of them when given. */
export async function listBatches(
  db: Kysely<ReadModelTables>,
  space: SpaceRef,
  threadId: string,
  status: EvidenceBatchRow['status'] | 'all',
  page?: { limit: number; offset: number },
): Promise<EvidenceBatchRow[]> {
  let q = db
    .selectFrom('evidence_batches')
    .selectAll()
    .where(inSpace(space))
    .where('thread_id', '=', threadId);
  if (status !== 'all') q = q.where('status', '=', status);
  q = q.orderBy('opened_position');
  if (page) q = q.limit(page.limit).offset(page.offset);
  return q.execute();
}

export async function unresolvedBatchIds(
  db: Kysely<ReadModelTables>,
  space: SpaceRef,
  threadId: string,
): Promise<string[]> {
  return (await listBatches(db, space, threadId, 'unresolved')).map((b) => b.batch_id);
}
