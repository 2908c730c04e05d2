import type { SpaceRef } from '@stratagate/domain';
import { readModel, type QueryContext } from './context.ts';
import type { FailedJobsReply } from './failed-jobs.schema.ts';
import { blocksWithFailedJobs } from './read-model/blocks.queries.ts';
import { requireSpace } from './spaces.ts';

type Job = FailedJobsReply['jobs'][number];

/**
 * MM-JOB-3: the derivation jobs of a space that failed for good, block by block, each with what
 * a retry needs (`POST …/blocks/{blockId}/retry` with its `job`).
 */
export async function listFailedJobs(
  ctx: QueryContext,
  space: SpaceRef,
  page: { limit: number; offset: number },
): Promise<FailedJobsReply> {
  const db = readModel(ctx);
  await requireSpace(db, space);
  const rows = await blocksWithFailedJobs(db, space, page);
  const jobs = rows.slice(0, page.limit).flatMap((b) => {
    const base = {
      blockId: b.block_id,
      threadId: b.thread_id,
      turnRange: [b.turn_from, b.turn_to],
    };
    const out: Job[] = [];
    const at = (d: Date | null) => d?.toISOString() ?? null;
    if (b.summary_status === 'failed') {
      out.push({
        ...base,
        job: 'summary',
        attempts: b.summary_attempts,
        nextRetryAt: at(b.summary_next_retry_at),
        lastError: b.summary_last_error,
      });
    }
    if (b.extraction_status === 'failed') {
      out.push({
        ...base,
        job: 'extraction',
        attempts: b.extraction_attempts,
        nextRetryAt: at(b.extraction_next_retry_at),
        lastError: b.extraction_last_error,
      });
    }
    if (b.graph_status === 'failed') {
      out.push({
        ...base,
        job: 'graph',
        attempts: b.graph_attempts,
        nextRetryAt: at(b.graph_next_retry_at),
        lastError: b.graph_last_error,
      });
    }
    return out;
  });
  return {
    spaceId: space.spaceId,
    jobs,
    offset: page.offset,
    nextOffset: rows.length > page.limit ? page.offset + page.limit : null,
  };
}
