import type { Kysely } from 'kysely';
import { type SpaceRef } from '@stratagate/domain';
import type { SpaceWriterService } from '@stratagate/ingest';
import { AppError } from '@stratagate/http';
import type { EvidenceBatchRow, ReadModelTables } from '@stratagate/store';
import type { QueryContext } from './blocks.route.ts';
import { rm } from './read-model.queries.ts';

export interface EvidenceContext extends QueryContext {
  writer: SpaceWriterService;
}

type Operation =
  | 'search_events'
  | 'expand_event'
  | 'search_graph'
  | 'expand_graph_node'
  | 'search_raw'
  | 'list_blocks'
  | 'expand_block';

/**
 * Opens `batch_<n>` for a retrieval (MM-GATE-2). The number comes from the space's serialised
 * writer, so concurrent searches never share an id; the record carries the refs the caller saw.
 */
export async function openBatch(
  ctx: EvidenceContext,
  space: SpaceRef,
  input: {
    threadId: string;
    operation: Operation;
    query: string;
    refs: string[];
    retrievedEventIds: string[];
  },
): Promise<{ batchId: string; position: number }> {
  let batchId = '';
  const outcome = await ctx.writer.write(
    space,
    { occurredAt: ctx.now().toISOString() },
    (state) => {
      batchId = `batch_${state.batchCount + 1}`;
      return [{ type: 'EvidenceBatchOpened', data: { batchId, ...input } }];
    },
  );
  const position = outcome.status === 'appended' ? outcome.records[0]!.position : 0;
  return { batchId, position };
}

/** Waits (bounded) until the read model has applied `position`: read-your-own-writes. */
export async function awaitProjection(
  ctx: QueryContext,
  space: SpaceRef,
  position: number,
  timeoutMs = 10_000,
) {
  const deadline = Date.now() + timeoutMs;
  while ((await ctx.projectedPosition(space)) < position) {
    if (Date.now() > deadline) {
      throw new AppError(
        503,
        'projection_lagging',
        'the read model has not caught up yet; retry shortly',
      );
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

export async function getBatch(
  db: Kysely<ReadModelTables>,
  space: SpaceRef,
  threadId: string,
  batchId: string | undefined,
): Promise<EvidenceBatchRow | undefined> {
  let q = db
    .selectFrom('evidence_batches')
    .selectAll()
    .where('tenant_id', '=', space.tenantId)
    .where('space_id', '=', space.spaceId)
    .where('thread_id', '=', threadId);
  q = batchId ? q.where('batch_id', '=', batchId) : q.orderBy('opened_position', 'desc').limit(1);
  return q.executeTakeFirst();
}

/** Makes sure every write so far (the caller's own included) is visible before a gate step. */
export async function catchUpReads(ctx: QueryContext, space: SpaceRef) {
  await awaitProjection(ctx, space, await ctx.logPosition(space));
  return rm(ctx.db, ctx.schema);
}

export async function unresolvedBatchIds(
  db: Kysely<ReadModelTables>,
  space: SpaceRef,
  threadId: string,
) {
  const rows = await db
    .selectFrom('evidence_batches')
    .select('batch_id')
    .where('tenant_id', '=', space.tenantId)
    .where('space_id', '=', space.spaceId)
    .where('thread_id', '=', threadId)
    .where('status', '=', 'unresolved')
    .orderBy('opened_position')
    .execute();
  return rows.map((r) => r.batch_id);
}
