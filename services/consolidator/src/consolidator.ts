import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
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
import { underLease, type HeldLease } from './leases.ts';
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
import { createTopicJobs, type DueTopicSpace } from './topic-jobs.ts';
import {
  blockMessages,
  dueSummaryJobs,
  nextRetryAt,
  previousSummary,
  type DueBlock,
  type SpaceRow,
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
  /**
   * How many spaces' jobs run at once (default 4): model calls wait on I/O. Never two jobs of one
   * space: a space derives in block order (ADR 0055), under one lease (ADR 0042).
   */
  concurrency?: number;
  /** How long a claim on a space's jobs lasts unless renewed (default 30 s; ADR 0042). */
  leaseMs?: number;
  /** Who claims: unique per consolidator (default host, pid and a random suffix). */
  holder?: string;
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
 * Several consolidators share the work: each claims a space with a lease before running its jobs
 * (ADR 0042), and runs up to `concurrency` spaces at once.
 */
export function createConsolidator(options: ConsolidatorOptions): Consolidator {
  const { db, log, model } = options;
  // One schema per pass: every job of a pass reads the same read-model version.
  let schema = typeof options.schema === 'string' ? options.schema : '';
  const now = options.now ?? (() => new Date());
  const timeoutMs = options.timeoutMs ?? 120_000;
  // Per space: the jobs this consolidator ran whose records are not projected yet (by job id).
  const awaitingProjection = new Map<string, Map<string, string>>();
  let stopSignal = new AbortController();
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const leaseMs = options.leaseMs ?? 30_000;
  const holder = options.holder ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
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

  async function runJob(block: DueBlock, lease: HeldLease): Promise<JobOutcome> {
    const space: SpaceRef = { tenantId: block.tenant_id, spaceId: block.space_id };
    const key = jobKey(block);
    const attempt = block.summary_attempts + 1;
    const { messages } = await modelMessages(block);
    let records: MemoryRecord[];
    try {
      const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), lease.signal]);
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
      if (lease.signal.aborted) return 'aborted';
      recordActiveSpanError(error);
      records = [failure(block.block_id, 'summary', attempt, error)];
    }
    if (!(await append(space, block, key, records, lease))) return 'aborted';
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

  /**
   * Appended inside the job's span: `newRecord` puts its trace context on the records. Only while
   * the space's lease still holds: a consolidator whose lease expired and was claimed by another
   * drops its result (false). What the check cannot fence (a lease lost between the check and the
   * append) the idempotency key does: the job's key is the same in every process (ADR 0042).
   */
  async function append(
    space: SpaceRef,
    block: DueBlock,
    key: string,
    records: MemoryRecord[],
    lease: HeldLease,
  ): Promise<boolean> {
    if (!(await lease.stillHeld())) return false;
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
    return true;
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
  async function runExtraction(block: BlockRow, lease: HeldLease): Promise<JobOutcome> {
    const space: SpaceRef = { tenantId: block.tenant_id, spaceId: block.space_id };
    const attempt = block.extraction_attempts + 1;
    const { messages, rows } = await modelMessages(block);
    let record: MemoryRecord;
    try {
      const [around, entries] = await Promise.all([
        neighbours(db, schema, block),
        timeline(db, schema, block),
      ]);
      const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), lease.signal]);
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
      if (lease.signal.aborted) return 'aborted';
      recordActiveSpanError(error);
      record = failure(block.block_id, 'extraction', attempt, error);
    }
    if (!(await append(space, block, extractionKey(block), [record], lease))) return 'aborted';
    return record.type === 'DerivationFailed' ? 'failed' : 'succeeded';
  }

  const graphKey = (b: BlockRow) =>
    `graph:${b.block_id}:c${b.graph_cycle}:a${b.graph_attempts + 1}`;

  /** MM-GRF: propose (model), then plan against the graph at commit (rules), record operations. */
  async function runGraph(block: BlockRow, lease: HeldLease): Promise<JobOutcome> {
    const space: SpaceRef = { tenantId: block.tenant_id, spaceId: block.space_id };
    const attempt = block.graph_attempts + 1;
    let record: MemoryRecord;
    try {
      const { events, proposalInput } = await graphJobContext(db, schema, block);
      const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), lease.signal]);
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
      if (lease.signal.aborted) return 'aborted';
      recordActiveSpanError(error);
      record = failure(block.block_id, 'graph', attempt, error);
    }
    if (!(await append(space, block, graphKey(block), [record], lease))) return 'aborted';
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

  const leaseOptions = () => ({
    db,
    holder,
    ttlMs: leaseMs,
    stop: stopSignal.signal,
    ...(options.onError ? { onError: options.onError } : {}),
  });
  const perPass = options.batchSize ?? Math.max(16, 4 * concurrency);
  const spaceKey = (b: SpaceRow) => `${b.tenant_id}/${b.space_id}`;
  let topicsRan = 0;

  /**
   * One space's due jobs, under its lease: read again now that the space is ours (another
   * consolidator may have run them since the pass looked), and run one after another: its
   * summaries, then its next extraction and graph job, then its topics.
   *
   * A space's extraction jobs read the events its earlier blocks yielded (the timeline), and its
   * graph jobs read and extend one graph. A job planned before the record of the job ahead of it
   * is projected would miss that record: the second of two graph jobs would create the nodes the
   * first one just created again. So each of these stages takes the space's first due block only
   * (MM-JOB-1, ADR 0055); if its job already ran and its record is not projected yet, the stage
   * waits for a later pass. Spaces do not wait for each other.
   */
  async function runSpace(
    space: SpaceRow,
    topics: DueTopicSpace | undefined,
    lease: HeldLease,
  ): Promise<number> {
    const key = spaceKey(space);
    const before = awaitingProjection.get(key) ?? new Map<string, string>();
    const after = new Map<string, string>();
    // A job already run whose record is not projected yet: remembered, or found by its key in
    // the log (appended by another consolidator, before a restart, or by an import; ADR 0045).
    const pending = async (id: string, jobKey: string) => {
      if (before.get(id) === jobKey || (await recorded(space, jobKey))) {
        after.set(id, jobKey);
        return true;
      }
      return false;
    };
    let ran = 0;
    const run = async <B extends DueBlock>(
      job: 'summary' | 'extraction' | 'graph',
      id: string,
      block: B,
      jobKey: string,
      fn: (block: B, lease: HeldLease) => Promise<JobOutcome>,
    ): Promise<boolean> => {
      if (lease.signal.aborted || (await shouldYield())) return false;
      if (await pending(id, jobKey)) return true;
      const outcome = await traced(job, block, () => fn(block, lease));
      if (outcome !== 'aborted') after.set(id, jobKey);
      ran += 1;
      return outcome !== 'aborted';
    };
    try {
      for (const block of await dueSummaryJobs(db, schema, now(), perPass, space)) {
        if (!(await run('summary', block.block_id, block, jobKey(block), runJob))) return ran;
      }
      if (model.extractMemoryEvents) {
        const [block] = await dueExtractionJobs(db, schema, now(), 1, space);
        if (
          block &&
          !(await run('extraction', block.block_id, block, extractionKey(block), runExtraction))
        )
          return ran;
      }
      if (model.proposeGraph) {
        const [block] = await dueGraphJobs(db, schema, now(), 1, space);
        const id = block && `${block.block_id}:graph`;
        if (block && !(await run('graph', id!, block, graphKey(block), runGraph))) return ran;
      }
      // Topics come after a space's extraction and graph work (MM-TOP-8, MM-TOP-11).
      if (topics && !lease.signal.aborted && !(await shouldYield())) {
        if (await topicJobs.runSpace(schema, topics, lease.signal, lease.stillHeld)) {
          ran += 1;
          topicsRan += 1;
        }
      }
      return ran;
    } finally {
      if (after.size > 0) awaitingProjection.set(key, after);
      else awaitingProjection.delete(key);
    }
  }

  /**
   * One pass: the spaces with due jobs, each claimed with a lease and run by one of
   * `concurrency` workers, so model calls of different spaces overlap and never two of one space
   * (ADR 0042). A space another consolidator holds is skipped; it stays due for it.
   */
  async function runDueJobs(): Promise<number> {
    if (typeof options.schema !== 'string') schema = await options.schema();
    // A space being imported gets its derivations from the file: its jobs wait (ADR 0045).
    importing = await importingSpaces(db);
    const spaces = new Map<string, SpaceRow>();
    const add = (b: SpaceRow) => {
      if (!importing.has(spaceKey(b)) && !spaces.has(spaceKey(b))) {
        spaces.set(spaceKey(b), { tenant_id: b.tenant_id, space_id: b.space_id });
      }
    };
    const at = now();
    // Each query returns at most `perPass` rows, the oldest blocks first; a summary query's rows
    // may share spaces, so it looks further to find as many spaces as the others.
    (await dueSummaryJobs(db, schema, at, perPass * 4)).forEach(add);
    if (model.extractMemoryEvents) (await dueExtractionJobs(db, schema, at, perPass)).forEach(add);
    if (model.proposeGraph) (await dueGraphJobs(db, schema, at, perPass)).forEach(add);
    const topics = new Map((await topicJobs.due(schema)).map((t) => [spaceKey(t), t]));
    for (const t of topics.values()) add(t);

    const queue = [...spaces.values()];
    let ran = 0;
    topicsRan = 0;
    const worker = async () => {
      for (let space = queue.shift(); space; space = queue.shift()) {
        if (stopSignal.signal.aborted || (await shouldYield())) return;
        const topic = topics.get(spaceKey(space));
        ran +=
          (await underLease(leaseOptions(), `space:${spaceKey(space)}`, (lease) =>
            runSpace(space, topic, lease),
          )) ?? 0;
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, worker));
    if (topicsRan === 0) topicJobs.idle();
    // Profiles: proposals the user answered, and compression when due (ADR 0050). They span
    // spaces, so they have one lease of their own.
    if (stopSignal.signal.aborted || (await shouldYield())) return ran;
    ran +=
      (await underLease(leaseOptions(), 'profiles', (lease) =>
        profileJobs.run(schema, lease.signal),
      )) ?? 0;
    return ran;
  }

  const loop = tailLoop({
    log,
    work: async () => {
      // A space's next extraction or graph job comes due once the projector applies the record
      // of the one before (`runSpace`), usually within tens of milliseconds: after a pass
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
