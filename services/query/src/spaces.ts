import type { Kysely } from 'kysely';
import type { SpaceRef } from '@stratagate/domain';
import { notFound } from '@stratagate/http';
import type { ReadModelTables, SpaceRow } from '@stratagate/store';
import { readModel, type QueryContext } from './context.ts';
import { getSpace, listSpaces as listSpaceRows } from './read-model/spaces.queries.ts';
import { listThreads as listThreadRows } from './read-model/threads.queries.ts';
import type { SpaceListReply, ThreadListReply } from './spaces.schema.ts';

/** The space's row; `space_not_found` when the tenant has no such space. */
export async function requireSpace(
  db: Kysely<ReadModelTables>,
  space: SpaceRef,
): Promise<SpaceRow> {
  const row = await getSpace(db, space);
  if (!row) throw notFound('space', space.spaceId);
  return row;
}

/** One page of the tenant's spaces, by id. */
export async function listSpaces(
  ctx: QueryContext,
  tenantId: string,
  page: { limit: number; offset: number },
): Promise<SpaceListReply> {
  const rows = await listSpaceRows(readModel(ctx), tenantId, page);
  return {
    spaces: rows.slice(0, page.limit).map((r) => ({
      spaceId: r.space_id,
      turnCounter: r.turn_counter,
      blockCount: r.block_count,
      blockSize: r.block_size,
      decayLambda: r.decay_lambda,
    })),
    nextOffset: rows.length > page.limit ? page.offset + page.limit : null,
  };
}

/** One page of the space's threads (its sessions), by id. */
export async function listThreads(
  ctx: QueryContext,
  space: SpaceRef,
  page: { limit: number; offset: number },
): Promise<ThreadListReply> {
  const db = readModel(ctx);
  await requireSpace(db, space);
  const rows = await listThreadRows(db, space, page);
  return {
    spaceId: space.spaceId,
    threads: rows.slice(0, page.limit).map((r) => ({
      threadId: r.thread_id,
      turnCount: r.turn_count,
      readyBlocks: r.ready_count,
    })),
    nextOffset: rows.length > page.limit ? page.offset + page.limit : null,
  };
}
