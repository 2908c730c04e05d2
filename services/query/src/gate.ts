import type { Kysely } from 'kysely';
import { decideOpenBatch, type OpenBatchCommand, type SpaceRef } from '@stratagate/domain';
import { AppError } from '@stratagate/http';
import type { ReadModelTables } from '@stratagate/store';
import { readModel, type QueryContext } from './context.ts';

/**
 * Opens `batch_<n>` for a retrieval (MM-GATE-2). The number comes from the space's serialised
 * writer, so concurrent searches never share an id; the record carries the refs the caller saw.
 */
export async function openBatch(
  ctx: QueryContext,
  space: SpaceRef,
  cmd: OpenBatchCommand,
): Promise<{ batchId: string; position: number }> {
  const outcome = await ctx.writer.write(space, { occurredAt: ctx.now().toISOString() }, (state) =>
    decideOpenBatch(state, cmd),
  );
  const opened = outcome.status === 'appended' ? outcome.records[0] : undefined;
  const batchId = (opened?.data as { batchId: string } | undefined)?.batchId ?? '';
  return { batchId, position: opened?.position ?? 0 };
}

/**
 * Waits (bounded) until the read model has applied `position`: read-your-own-writes. The request
 * follows a switch of the live schema while it waits (the old version stops advancing there).
 */
export async function awaitProjection(
  ctx: QueryContext,
  space: SpaceRef,
  position: number,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    ctx.schema = await ctx.projection.liveSchema();
    if ((await ctx.projection.projectedPosition(ctx.schema, space)) >= position) return;
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

/** Makes sure every write so far (the caller's own included) is visible before a gate step. */
export async function catchUpReads(
  ctx: QueryContext,
  space: SpaceRef,
): Promise<Kysely<ReadModelTables>> {
  await awaitProjection(ctx, space, await ctx.projection.logPosition(space));
  return readModel(ctx);
}

/**
 * How far the read model has applied the space, told in the space's own records: the position
 * of its last record (`head`) and of its last applied record (`applied`), neither moved by
 * another space's writes.
 */
export async function spaceProgress(
  ctx: QueryContext,
  space: SpaceRef,
): Promise<{ head: number; applied: number }> {
  const head = await ctx.projection.logPosition(space);
  const projected = await ctx.projection.projectedPosition(ctx.schema, space);
  const applied =
    projected >= head ? head : await ctx.projection.spacePositionAtOrBelow(space, projected);
  return { head, applied };
}
