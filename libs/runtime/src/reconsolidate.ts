import type { Kysely } from 'kysely';
import type { SpaceRef } from '@stratagate/domain';
import { newRecord, type MessageLog } from '@stratagate/log';
import type { AnyDb, ReadModelTables } from '@stratagate/store';
import { recordAppended } from '@stratagate/telemetry';

export interface ReconsolidationRequest {
  db: AnyDb;
  log: MessageLog;
  schema: string;
  space: SpaceRef;
  fromSequence?: number | undefined;
  toSequence?: number | undefined;
  reason: string;
  now?: () => Date;
  onProgress?: (done: number, total: number) => void;
}

/**
 * Asks the consolidator to extract a space's blocks (or a sequence range) again with the current
 * extractor: appends one ReconsolidationRequested per summarised block. Old records stay in the
 * log; the blocks' earlier events are archived when the new extraction lands.
 */
export async function requestReconsolidation(req: ReconsolidationRequest): Promise<number> {
  let q = (req.db as Kysely<ReadModelTables>)
    .withSchema(req.schema)
    .selectFrom('blocks')
    .select(['block_id', 'thread_id'])
    .where('tenant_id', '=', req.space.tenantId)
    .where('space_id', '=', req.space.spaceId)
    .where('summary_status', '=', 'succeeded');
  if (req.fromSequence !== undefined) q = q.where('sequence', '>=', req.fromSequence);
  if (req.toSequence !== undefined) q = q.where('sequence', '<=', req.toSequence);
  const blocks = await q.orderBy('sequence').execute();
  const at = (req.now ?? (() => new Date()))().toISOString();
  for (let i = 0; i < blocks.length; i += 100) {
    const chunk = blocks.slice(i, i + 100);
    const result = await req.log.append(
      req.space,
      chunk.map((b) =>
        newRecord(
          req.space,
          {
            type: 'ReconsolidationRequested',
            data: { blockId: b.block_id, job: 'extraction', reason: req.reason },
          },
          { occurredAt: at, threadId: b.thread_id },
        ),
      ),
    );
    if (result.status === 'appended') recordAppended(req.log.name, result.records);
    req.onProgress?.(Math.min(i + 100, blocks.length), blocks.length);
  }
  return blocks.length;
}
