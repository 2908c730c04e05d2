import { compactForModel, type MemoryRecord, type SpaceRef } from '@stratagate/domain';
import { newRecord, tailLoop, type MessageLog } from '@stratagate/log';
import type { ModelPort, SummaryMessage } from '@stratagate/model';
import type { AnyDb } from '@stratagate/store';
import {
  blockMessages,
  dueSummaryJobs,
  nextRetryAt,
  previousSummary,
  type DueBlock,
} from './summary-jobs.ts';

export interface ConsolidatorOptions {
  db: AnyDb;
  log: MessageLog;
  schema: string;
  model: ModelPort;
  now?: () => Date;
  /** Structured model tasks time out after this (MM-JOB-5: 120 s). */
  timeoutMs?: number;
  idleMs?: number;
  batchSize?: number;
  onError?: (error: unknown) => void;
}

export interface Consolidator {
  /** Runs every due job once; returns how many jobs it ran. */
  runDueJobs(): Promise<number>;
  start(): void;
  stop(): Promise<void>;
}

/**
 * Does the model-driven work and appends the model's validated output as records; it never
 * writes read models. Jobs are found in the projected block state; a job already run but not yet
 * projected is remembered in memory, and the record's idempotency key makes a second run a no-op.
 */
export function createConsolidator(options: ConsolidatorOptions): Consolidator {
  const { db, log, schema, model } = options;
  const now = options.now ?? (() => new Date());
  const timeoutMs = options.timeoutMs ?? 120_000;
  const awaitingProjection = new Map<string, string>();
  let stopSignal = new AbortController();

  const jobKey = (b: DueBlock) =>
    `summary:${b.block_id}:c${b.summary_cycle}:a${b.summary_attempts + 1}`;

  async function runJob(block: DueBlock): Promise<void> {
    const space: SpaceRef = { tenantId: block.tenant_id, spaceId: block.space_id };
    const key = jobKey(block);
    const attempt = block.summary_attempts + 1;
    const rows = await blockMessages(db, schema, block);
    const compacted = compactForModel(
      rows.map((m) => ({ role: m.role, content: m.content, toolCalls: m.tool_calls })),
    );
    const messages: SummaryMessage[] = rows.map((m, i) => ({
      messageId: m.message_id,
      role: m.role,
      ...(m.name ? { name: m.name } : {}),
      content: compacted[i]?.content ?? m.content,
      toolCalls: compacted[i]?.toolCalls ?? m.tool_calls,
      occurredAt: m.occurred_at,
    }));
    let records: MemoryRecord[];
    try {
      const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), stopSignal.signal]);
      const result = await model.summarizeBlock(
        {
          blockId: block.block_id,
          threadId: block.thread_id,
          messages,
          previousSummary: await previousSummary(db, schema, block),
        },
        { signal },
      );
      const { output } = result;
      records = [
        {
          type: 'BlockSummarized',
          data: {
            blockId: block.block_id,
            attempt,
            ...output,
            model: {
              provider: result.provider,
              ...(result.model ? { model: result.model } : {}),
              promptVersion: result.promptVersion,
              ...(result.usage ? { usage: result.usage } : {}),
            },
          },
        },
      ];
      if (output.shouldExtract) {
        // Memory-event extraction is not part of this build yet; say so instead of pretending.
        records.push({
          type: 'ExtractionSkipped',
          data: { blockId: block.block_id, reason: 'no memory-event extractor in this version' },
        });
      }
    } catch (error) {
      if (stopSignal.signal.aborted) return;
      const e = error as { code?: string; message?: string; name?: string };
      records = [
        {
          type: 'DerivationFailed',
          data: {
            blockId: block.block_id,
            job: 'summary',
            attempt,
            error: {
              code: e.name === 'TimeoutError' ? 'timeout' : (e.code ?? 'model_error'),
              message: String(e.message ?? error).slice(0, 2000),
            },
            nextRetryAt: nextRetryAt(now(), attempt),
          },
        },
      ];
    }
    const at = now().toISOString();
    const newRecords = records.map((r, i) =>
      newRecord(space, r, {
        occurredAt: at,
        threadId: block.thread_id,
        idempotencyKey: i === 0 ? key : undefined,
      }),
    );
    await log.append(space, newRecords);
    awaitingProjection.set(block.block_id, key);
  }

  async function runDueJobs(): Promise<number> {
    const due = await dueSummaryJobs(db, schema, now(), options.batchSize ?? 16);
    let ran = 0;
    for (const block of due) {
      // Already handled, waiting for the projector to catch up with our record.
      if (awaitingProjection.get(block.block_id) === jobKey(block)) continue;
      await runJob(block);
      ran += 1;
    }
    // Forget entries whose block moved on (projected), so the map stays small.
    const dueKeys = new Set(due.map((b) => b.block_id));
    for (const id of awaitingProjection.keys()) if (!dueKeys.has(id)) awaitingProjection.delete(id);
    return ran;
  }

  const loop = tailLoop({
    log,
    work: runDueJobs,
    idleMs: options.idleMs ?? 200,
    // Jobs come from projected block state, not from appends: polling is enough, and waking on
    // every append would only repeat the due-jobs query under load.
    wakeOnAppend: false,
    onError: options.onError,
    // Abort a model call in flight; its job stays due and runs again after a restart.
    onStop: () => stopSignal.abort(),
  });

  return {
    runDueJobs,
    start() {
      if (stopSignal.signal.aborted) stopSignal = new AbortController();
      loop.start();
    },
    stop: loop.stop,
  };
}
