import type { SpaceRef } from '@stratagate/domain';
import type { SpaceStatusReply } from './blocks.schema.ts';
import { readModel, type QueryContext } from './context.ts';
import { spaceProgress } from './gate.ts';
import { jobCounts, topicJobState, unsettledBlockCount } from './read-model/spaces.queries.ts';
import { requireSpace } from './spaces.ts';

/**
 * Counters of the space, its derivation job states and how far projection has got, told in the
 * space's own records only: its positions move when this space is written, never with another
 * tenant's writes. `settled` says everything the space holds is derived and visible.
 */
export async function getSpaceStatus(
  ctx: QueryContext,
  space: SpaceRef,
): Promise<SpaceStatusReply> {
  // Positions first, counters after: when projectedPosition has reached logPosition, the
  // counters describe a state at least that recent, so "caught up and nothing pending" can
  // never pair new positions with counters from before the last records.
  const { head: logPosition, applied: projectedPosition } = await spaceProgress(ctx, space);
  const db = readModel(ctx);
  const row = await requireSpace(db, space);
  const [jobs, unsettled, topics] = await Promise.all([
    jobCounts(db, space),
    unsettledBlockCount(db, space),
    topicJobState(db, space),
  ]);
  const sum = (pred: (j: (typeof jobs)[number]) => boolean) =>
    jobs.filter(pred).reduce((n, j) => n + j.n, 0);
  return {
    spaceId: space.spaceId,
    blockSize: row.block_size,
    decayLambda: row.decay_lambda,
    turnCounter: row.turn_counter,
    blocks: {
      total: sum(() => true),
      ready: sum((j) => j.status === 'ready'),
      pending: sum((j) => j.status === 'pending'),
    },
    summaryJobs: {
      pending: sum((j) => j.summary_status === 'pending'),
      succeeded: sum((j) => j.summary_status === 'succeeded'),
      failed: sum((j) => j.summary_status === 'failed'),
    },
    extractionJobs: {
      pending: sum((j) => j.extraction_status === 'pending'),
      succeeded: sum((j) => j.extraction_status === 'succeeded'),
      skipped: sum((j) => j.extraction_status === 'skipped'),
      failed: sum((j) => j.extraction_status === 'failed'),
    },
    graphJobs: {
      pending: sum((j) => j.graph_status === 'pending'),
      completed: sum((j) => j.graph_status === 'completed'),
      failed: sum((j) => j.graph_status === 'failed'),
    },
    topicJobs: {
      unassignedEvents: topics.unassignedEvents,
      pendingUpdate: topics.pendingUpdate,
      status:
        topics.job?.status === 'failed' ? 'failed' : topics.unassignedEvents > 0 ? 'due' : 'idle',
      attempts: topics.job?.attempts ?? 0,
      lastError: topics.job?.last_error ?? null,
    },
    projectedPosition,
    logPosition,
    settled: projectedPosition >= logPosition && unsettled === 0,
  };
}
