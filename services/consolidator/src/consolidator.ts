import { randomUUID } from 'node:crypto';
import {
  admitEvents,
  compactForModel,
  planGraphUpdate,
  type MemoryRecord,
  type SpaceRef,
} from '@stratagate/domain';
import { newRecord, tailLoop, type MessageLog } from '@stratagate/log';
import { InvalidModelOutputError, type ModelPort, type SummaryMessage } from '@stratagate/model';
import { importingSpaces, type AnyDb, type BlockRow } from '@stratagate/store';
import {
  recordActiveSpanError,
  recordAppended,
  traceConsolidationJob,
  type JobOutcome,
} from '@stratagate/telemetry';
import { AppendRateGate } from './append-rate-gate.ts';
import { dueExtractionJobs, linkableIds, neighbours, timeline } from './extraction-jobs.ts';
import { dueGraphJobs, graphJobContext, sourceEventInfo } from './graph-jobs.ts';
import { createProfileJobs } from './profile-jobs.ts';
import { createTopicJobs } from './topic-jobs.ts';
import { nextPerSpace } from './space-order.ts';
import {
  blockMessages,
  dueSummaryJobs,
  nextRetryAt,
  previousSummary,
  type DueBlock,
} from './summary-jobs.ts';

/** The pause before another pass after a pass that ran jobs. */
const REPASS_MS = 25;

export interface ConsolidatorOptions {
  db: AnyDb;
  log: MessageLog;
  /**
   * The read-model schema, or how to find the live one: resolved at the start of every pass, so
   * a projection rebuild's switch is followed (ADR 0009).
   */
  schema: string | (() => Promise<string>);
  model: ModelPort;
  now?: () => Date;
  /** Structured model tasks time out after this (MM-JOB-5: 120 s). */
  timeoutMs?: number;
  idleMs?: number;
  batchSize?: number;
  onError?: (error: unknown) => void;
  /**
   * The log head and the projector's position, on a log whose positions count records (the
   * Postgres-table log). While the projector is more than `yieldAboveRecords` behind, the loop
   * skips its passes: projection (what agents read) goes before enrichment on a shared machine,
   * and the records the jobs would append would only add to the projector's backlog. While others
   * append faster than `yieldAboveAppendRate`, passes wait too (ADR 0026).
   */
  progress?: () => Promise<{ head: number; projected: number }>;
  /**
   * Who builds topics: the offline builder (default: no model calls, exempt from the history
   * budget of MM-TOP-9) or `model`, the model's `buildTopics`, within that budget for history.
   */
  topicBuilder?: 'offline' | 'model';
  /** Default 1,000 records. */
  yieldAboveRecords?: number;
  /** Records per second appended by others (default 500; 0: never wait for them). */
  yieldAboveAppendRate?: number;
  /** Longest wait for a busy log in one busy period (default 10 s). */
  maxAppendRateWaitMs?: number;
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
  const { db, log, model } = options;
  // One schema per pass: every job of a pass reads the same read-model version.
  let schema = typeof options.schema === 'string' ? options.schema : '';
  const now = options.now ?? (() => new Date());
  const timeoutMs = options.timeoutMs ?? 120_000;
  const awaitingProjection = new Map<string, string>();
  let stopSignal = new AbortController();
  // Records this consolidator appended, so the gate counts only others' appends.
  let appended = 0;
  const gate = new AppendRateGate({
    aboveRecordsPerSecond: options.yieldAboveAppendRate ?? 500,
    maxWaitMs: options.maxAppendRateWaitMs ?? 10_000,
  });

  const profileJobs = createProfileJobs({
    db,
    log,
    model,
    now,
    timeoutMs,
    batchSize: options.batchSize ?? 16,
  });

  // Spaces being imported, as of the current pass (ADR 0045).
  let importing = new Set<string>();
  const topicJobs = createTopicJobs({
    db,
    log,
    model,
    now,
    timeoutMs,
    batchSize: options.batchSize ?? 16,
    builder: options.topicBuilder === 'model' ? 'model' : 'offline',
    skip: (b) => importing.has(`${b.tenant_id}/${b.space_id}`),
    ...(options.progress ? { projected: async () => (await options.progress!()).projected } : {}),
  });

  const jobKey = (b: DueBlock) =>
    `summary:${b.block_id}:c${b.summary_cycle}:a${b.summary_attempts + 1}`;

  async function runJob(block: DueBlock): Promise<JobOutcome> {
    const space: SpaceRef = { tenantId: block.tenant_id, spaceId: block.space_id };
    const key = jobKey(block);
    const attempt = block.summary_attempts + 1;
    const { messages } = await modelMessages(block);
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
            model: provenance(result),
          },
        },
      ];
      if (output.shouldExtract && !model.extractMemoryEvents) {
        // This provider cannot extract; say so instead of pretending, so the block turns ready.
        records.push({
          type: 'ExtractionSkipped',
          data: {
            blockId: block.block_id,
            reason: `provider ${model.name} has no memory-event extractor`,
          },
        });
      }
    } catch (error) {
      if (stopSignal.signal.aborted) return 'aborted';
      recordActiveSpanError(error);
      records = [failure(block.block_id, 'summary', attempt, error)];
    }
    await append(space, block, key, records);
    awaitingProjection.set(block.block_id, key);
    return records[0]!.type === 'DerivationFailed' ? 'failed' : 'succeeded';
  }

  function provenance(result: {
    provider: string;
    model?: string;
    promptVersion: string;
    usage?: { inputTokens: number; outputTokens: number };
  }) {
    return {
      provider: result.provider,
      ...(result.model ? { model: result.model } : {}),
      promptVersion: result.promptVersion,
      ...(result.usage ? { usage: result.usage } : {}),
    };
  }

  function failure(
    blockId: string,
    job: 'summary' | 'extraction' | 'graph',
    attempt: number,
    error: unknown,
  ): MemoryRecord {
    const e = error as { code?: string; message?: string; name?: string };
    return {
      type: 'DerivationFailed',
      data: {
        blockId,
        job,
        attempt,
        error: {
          code: e.name === 'TimeoutError' ? 'timeout' : (e.code ?? 'model_error'),
          message: String(e.message ?? error).slice(0, 2000),
        },
        nextRetryAt: nextRetryAt(now(), attempt),
      },
    };
  }

  /** The block's messages as models see them: a compacted copy, L5 untouched (MM-BLK-15). */
  async function modelMessages(block: DueBlock) {
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
    return { messages, rows };
  }

  /** Appended inside the job's span: `newRecord` puts its trace context on the records. */
  async function append(space: SpaceRef, block: DueBlock, key: string, records: MemoryRecord[]) {
    const at = now().toISOString();
    const result = await log.append(
      space,
      records.map((r, i) =>
        newRecord(space, r, {
          occurredAt: at,
          threadId: block.thread_id,
          idempotencyKey: i === 0 ? key : undefined,
        }),
      ),
    );
    if (result.status === 'appended') {
      appended += result.records.length;
      recordAppended(log.name, result.records);
    }
  }

  /**
   * The trace context of the record that made the job due: the one that last changed the block
   * (its seal, the summary an extraction follows, a retry request). Read from the log by the
   * position the read model keeps, so nothing new is stored. A log that cannot read by position
   * (no `readAt`, no global order) makes the job start its own trace.
   */
  async function originTraceparent(block: DueBlock): Promise<string | undefined> {
    const position = Number(block.applied_position);
    if (!(position > 0)) return undefined;
    const space = { tenantId: block.tenant_id, spaceId: block.space_id };
    try {
      if (log.readAt) return (await log.readAt(space, position))?.metadata.traceparent;
      if (!log.capabilities.globalOrder) return undefined;
      const [record] = await log.readAll(position - 1, 1);
      return record?.position === position ? record.metadata.traceparent : undefined;
    } catch {
      return undefined; // tracing only: the job runs anyway
    }
  }

  async function traced(
    job: 'summary' | 'extraction' | 'graph',
    block: DueBlock,
    run: () => Promise<JobOutcome>,
  ): Promise<JobOutcome> {
    return traceConsolidationJob(
      job,
      await originTraceparent(block),
      {
        'stratagate.tenant.id': block.tenant_id,
        'stratagate.space.id': block.space_id,
        'stratagate.block.id': block.block_id,
      },
      run,
    );
  }

  const extractionKey = (b: BlockRow) =>
    `extract:${b.block_id}:c${b.extraction_cycle}:a${b.extraction_attempts + 1}`;

  /** MM-EVT-13..17: extract, admit against the state at commit, record the admitted events. */
  async function runExtraction(block: BlockRow): Promise<JobOutcome> {
    const space: SpaceRef = { tenantId: block.tenant_id, spaceId: block.space_id };
    const attempt = block.extraction_attempts + 1;
    const { messages, rows } = await modelMessages(block);
    let record: MemoryRecord;
    try {
      const [around, entries] = await Promise.all([
        neighbours(db, schema, block),
        timeline(db, schema, block),
      ]);
      const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), stopSignal.signal]);
      const result = await model.extractMemoryEvents!(
        {
          blockId: block.block_id,
          threadId: block.thread_id,
          messages,
          ...around,
          timeline: entries,
        },
        { signal },
      );
      const events = admitEvents(result.output.events, {
        blockId: block.block_id,
        threadId: block.thread_id,
        blockMessageIds: rows.map((m) => m.message_id),
        messageTimes: Object.fromEntries(rows.map((m) => [m.message_id, m.occurred_at])),
        // Re-checked now, not when the timeline was read: an event forgotten meanwhile is out.
        linkableEventIds: await linkableIds(
          db,
          schema,
          block,
          entries.map((e) => e.id),
        ),
        formedTurn: block.space_turn_to,
        newEventId: () => `evt_${randomUUID().replace(/-/g, '')}`,
      });
      if (events.length === 0 && block.should_extract && !model.deterministic) {
        throw new InvalidModelOutputError(
          'extractor requested extraction but returned no valid events',
        );
      }
      record = {
        type: 'MemoryEventsExtracted',
        data: {
          blockId: block.block_id,
          attempt,
          events,
          model: provenance(result),
        },
      };
    } catch (error) {
      if (stopSignal.signal.aborted) return 'aborted';
      recordActiveSpanError(error);
      record = failure(block.block_id, 'extraction', attempt, error);
    }
    await append(space, block, extractionKey(block), [record]);
    awaitingProjection.set(block.block_id, extractionKey(block));
    return record.type === 'DerivationFailed' ? 'failed' : 'succeeded';
  }

  const graphKey = (b: BlockRow) =>
    `graph:${b.block_id}:c${b.graph_cycle}:a${b.graph_attempts + 1}`;

  /** MM-GRF: propose (model), then plan against the graph at commit (rules), record operations. */
  async function runGraph(block: BlockRow): Promise<JobOutcome> {
    const space: SpaceRef = { tenantId: block.tenant_id, spaceId: block.space_id };
    const attempt = block.graph_attempts + 1;
    let record: MemoryRecord;
    try {
      const { events, proposalInput } = await graphJobContext(db, schema, block);
      const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), stopSignal.signal]);
      const result = await model.proposeGraph!(proposalInput, { signal });
      // Re-read the graph and the sources' states now: the plan is validated at commit.
      const { snapshot } = await graphJobContext(db, schema, block);
      const batchIds = events.map((e) => e.event_id);
      const plan = planGraphUpdate({
        snapshot,
        proposal: result.output,
        batchEventIds: batchIds,
        events: await sourceEventInfo(db, schema, block, snapshot, batchIds),
        newId: (prefix) => `${prefix}_${randomUUID().replace(/-/g, '')}`,
      });
      if (!plan.ok) throw Object.assign(new Error(plan.error), { code: 'invalid_graph_proposal' });
      record = {
        type: 'GraphProjected',
        data: {
          blockId: block.block_id,
          attempt,
          eventIds: batchIds,
          operations: plan.operations,
          warnings: plan.warnings,
          eventNodeIds: plan.eventNodeIds,
          model: provenance(result),
        },
      };
    } catch (error) {
      if (stopSignal.signal.aborted) return 'aborted';
      recordActiveSpanError(error);
      record = failure(block.block_id, 'graph', attempt, error);
    }
    await append(space, block, graphKey(block), [record]);
    awaitingProjection.set(`${block.block_id}:graph`, graphKey(block));
    return record.type === 'DerivationFailed' ? 'failed' : 'succeeded';
  }

  let sampledAt = -Infinity;
  /**
   * True while the projector is far behind or others append fast (ADR 0026). Asked before every
   * pass and, at most every 100 ms, between a pass's jobs, so a burst that starts during a long
   * pass stops it early; the jobs left stay due.
   */
  async function shouldYield(always = false): Promise<boolean> {
    if (!options.progress) return false;
    const at = performance.now();
    if (!always && at - sampledAt < 100) return false;
    sampledAt = at;
    const { head, projected } = await options.progress();
    const busy = gate.shouldWait({ at, head, own: appended });
    return busy || head - projected > (options.yieldAboveRecords ?? 1_000);
  }

  /**
   * Whether the job's result is already in the log, not yet projected: a space import brought it
   * (ADR 0045), or this consolidator appended it before a restart. Its idempotency key says so.
   */
  async function recorded(block: { tenant_id: string; space_id: string }, key: string) {
    const space = { tenantId: block.tenant_id, spaceId: block.space_id };
    return (await log.findByIdempotencyKey(space, key)) !== null;
  }

  async function runDueJobs(): Promise<number> {
    if (typeof options.schema !== 'string') schema = await options.schema();
    // A space being imported gets its derivations from the file: its jobs wait (ADR 0045).
    importing = await importingSpaces(db);
    const open = (b: { tenant_id: string; space_id: string }) =>
      !importing.has(`${b.tenant_id}/${b.space_id}`);
    const due = (await dueSummaryJobs(db, schema, now(), options.batchSize ?? 16)).filter(open);
    let ran = 0;
    for (const block of due) {
      // Already handled, waiting for the projector to catch up with our record.
      if (awaitingProjection.get(block.block_id) === jobKey(block)) continue;
      if (await shouldYield()) return ran;
      if (await recorded(block, jobKey(block))) {
        awaitingProjection.set(block.block_id, jobKey(block));
        continue;
      }
      await traced('summary', block, () => runJob(block));
      ran += 1;
    }
    const dueExtraction = model.extractMemoryEvents
      ? (await dueExtractionJobs(db, schema, now(), options.batchSize ?? 16)).filter(open)
      : [];
    const extraction = nextPerSpace(
      dueExtraction,
      (b) => awaitingProjection.get(b.block_id) === extractionKey(b),
    );
    for (const block of extraction) {
      if (await shouldYield()) return ran;
      if (await recorded(block, extractionKey(block))) {
        awaitingProjection.set(block.block_id, extractionKey(block));
        continue;
      }
      await traced('extraction', block, () => runExtraction(block));
      ran += 1;
    }
    const dueGraph = model.proposeGraph
      ? (await dueGraphJobs(db, schema, now(), options.batchSize ?? 16)).filter(open)
      : [];
    const graph = nextPerSpace(
      dueGraph,
      (b) => awaitingProjection.get(`${b.block_id}:graph`) === graphKey(b),
    );
    for (const block of graph) {
      if (await shouldYield()) return ran;
      if (await recorded(block, graphKey(block))) {
        awaitingProjection.set(`${block.block_id}:graph`, graphKey(block));
        continue;
      }
      await traced('graph', block, () => runGraph(block));
      ran += 1;
    }
    // Forget entries whose block moved on (projected), so the map stays small.
    const dueKeys = new Set([
      ...[...due, ...dueExtraction].map((b) => b.block_id),
      ...dueGraph.map((b) => `${b.block_id}:graph`),
    ]);
    for (const id of awaitingProjection.keys()) if (!dueKeys.has(id)) awaitingProjection.delete(id);
    // Topics come after a space's extraction and graph work (MM-TOP-8, MM-TOP-11).
    if (await shouldYield()) return ran;
    ran += await topicJobs.run(schema, stopSignal.signal);
    // Profiles: proposals the user answered, and compression when due (ADR 0050).
    if (await shouldYield()) return ran;
    ran += await profileJobs.run(schema, stopSignal.signal);
    return ran;
  }

  const loop = tailLoop({
    log,
    work: async () => {
      // A space's next extraction or graph job comes due once the projector applies the record
      // of the one before (space-order.ts), usually within tens of milliseconds: after a pass
      // that ran jobs, look again soon rather than after `idleMs`.
      for (;;) {
        if (await shouldYield(true)) return;
        if ((await runDueJobs()) === 0 || stopSignal.signal.aborted) return;
        await new Promise((resolve) => setTimeout(resolve, REPASS_MS));
      }
    },
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
