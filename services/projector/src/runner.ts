import { decodeRecord, type DecodedRecord } from '@stratagate/domain';
import {
  CheckpointMoved,
  createTableSource,
  sleepUnlessAborted,
  type Checkpoint,
  type CommitOutcome,
  type MessageLog,
  type MessageSource,
} from '@stratagate/log';
import type { AnyDb } from '@stratagate/store';
import { recordConsumerLag, traceRecordBatch } from '@stratagate/telemetry';
import { BatchSizer, type BatchBudget } from './batch-budget.ts';
import type { Projection } from './projection.ts';
import { readCheckpoint, storeCheckpoint } from './checkpoints.ts';
import { deferredLane } from './deferred-lane.ts';
import {
  fixedTarget,
  TargetMoved,
  type ProjectionTarget,
  type ResolvedTarget,
} from './versions.ts';

export interface ProjectorSettings {
  db: AnyDb;
  log: MessageLog;
  /** Records per batch at most (default 500). */
  batchSize?: number;
  /**
   * Holds each batch's transaction (and each indexing-lane slice) to about this long by sizing
   * batches from measured durations (ADR 0019): for the embedded store, whose one session an
   * acknowledgement waits for. Without it every batch may take `batchSize` records.
   */
  batchBudget?: BatchBudget;
  /**
   * True while a foreground caller waits for the session (the embedded store's
   * `Database.foregroundWaiting`): a batch then stops at the next record, commits what it
   * applied with its checkpoint, and lets the caller go first; lane slices stop between blocks
   * (ADR 0023).
   */
  yieldWhen?: () => boolean;
  /** Poll interval when idle; in-process appends wake the loop. */
  idleMs?: number;
  /** Delay after a wake-up so bursts are applied in larger batches (default 20 ms). */
  coalesceMs?: number;
  onError?: (error: unknown) => void;
  /** After each committed batch (progress reporting). */
  onBatch?: (batch: RunnerBatch) => void;
  /**
   * After each committed batch and each committed indexing-lane slice: where the read model is
   * complete may have moved (the checkpoint, or the oldest seal still queued for raw search).
   */
  onProgress?: (schema: string) => void;
  /** After each committed indexing-lane slice (readiness: the lane moves). */
  onSlice?: (schema: string) => void;
  /** After each pass that found nothing past the checkpoint (readiness: the projector moves). */
  onCaughtUp?: () => void;
}

/** A committed batch: checkpoint positions before and after it, and the records it applied. */
export interface RunnerBatch {
  schema: string;
  from: number;
  to: number;
  records: number;
  /** The source's labels of the batch (Kafka: its partition). */
  attributes: Readonly<Record<string, string>>;
}

/** One schema (`schema` + `projection`), or a target that may move (the live version). */
export type ProjectorOptions = ProjectorSettings &
  ({ schema: string; projection: Projection } | { target: ProjectionTarget });

/** The one runner over a MessageSource (ADR 0049): what a projector on any log is built from. */
export type RunnerOptions = Omit<ProjectorSettings, 'log'> & {
  target: ProjectionTarget;
  /** Opens the source of the consumer that projects `target` (Kafka: joins its group). */
  source(target: ResolvedTarget): Promise<MessageSource>;
  /**
   * Loops applying batches side by side (default 1). Only for sources whose batches of
   * different partitions commit independently (`capabilities.concurrentBatches`).
   */
  concurrency?: number;
  /** Ends `catchUp` at the next batch boundary or idle wait (returning the checkpoint reached). */
  signal?: AbortSignal;
};

/**
 * Records the projector may be behind the log head and still give way to a waiting append (ADR
 * 0023). Behind a burst the backlog settles about here, so the lag when the burst ends is about
 * this many records' projection time (about 1 s on the embedded store). The consolidator's
 * records for a run of blocks come in hundreds; a lower bound (100) let them end the giving way
 * and put the acknowledgements back behind whole batches.
 */
export const YIELD_BACKLOG = 500;

export interface Projector {
  /**
   * Applies batches until the log has nothing newer and the projection's deferred work is done;
   * returns the checkpoint reached.
   */
  catchUp(): Promise<number>;
  start(): void;
  stop(): Promise<void>;
  position(): Promise<number>;
}

export interface Runner extends Projector {
  /** Resolves the target and opens its source (Kafka: joined the group). */
  open(): Promise<void>;
  /** The source in use (null before `open` or the first pass). */
  source(): MessageSource | null;
}

/**
 * A projector on the table log: the one runner over the table source, whose checkpoint is the
 * schema's `checkpoints` row.
 */
export function createProjector(options: ProjectorOptions): Projector {
  const target =
    'target' in options ? options.target : fixedTarget(options.schema, options.projection);
  return createRunner({
    ...options,
    target,
    source: async (t) => tableSourceOf(options.db, options.log, t, options.coalesceMs),
  });
}

/** The table log as read by the consumer that projects `t` into its schema. */
export function tableSourceOf(
  db: AnyDb,
  log: MessageLog,
  t: ResolvedTarget,
  coalesceMs?: number,
): MessageSource {
  const name = t.projection.name;
  return createTableSource({
    log,
    db,
    checkpoints: {
      read: (q) => readCheckpoint(q, t.schema, name),
      store: (tx, expected, next) => storeCheckpoint(tx, t.schema, name, expected, next),
    },
    ...(coalesceMs !== undefined ? { coalesceMs } : {}),
  });
}

/**
 * Reads the source from the checkpoint and applies each batch in one transaction together with
 * the checkpoint the source stores in it. A crash between append and projection loses nothing:
 * the next run resumes from the stored checkpoint.
 *
 * The target schema is resolved at the start of each pass and confirmed inside every batch's
 * transaction: when a rebuild switches reads to a new version, the batch in flight rolls back
 * and the runner opens the new schema's source, which continues from that schema's own
 * checkpoint (ADR 0009).
 */
export function createRunner(options: RunnerOptions): Runner {
  const { db, target } = options;
  const sizer = new BatchSizer({ budget: options.batchBudget, max: options.batchSize ?? 500 });
  // Records in the log past the last batch, as last seen (the lag report reads the head).
  let behind = 0;
  const idleMs = options.idleMs ?? 200;
  let active: ResolvedTarget | null = null;
  let source: MessageSource | null = null;
  let migrated: string | null = null;
  // Opened a source whose schema's queued deferred work has not been kicked yet.
  let fresh = false;
  // The checkpoint as last stored; a source that finds it moved makes us read it again.
  let checkpoint: Checkpoint | null = null;
  // Batches give way only while the projector keeps up: behind a burst they hold on, and the
  // appends wait (backpressure, ADR 0019), or ingest would outrun projection (ADR 0023).
  const yieldWhen = options.yieldWhen;
  const control = yieldWhen
    ? { shouldYield: () => behind <= YIELD_BACKLOG && yieldWhen() }
    : undefined;
  const loops = Math.max(1, options.concurrency ?? 1);

  const lane = deferredLane({
    db,
    work: () => active?.projection.deferred,
    onError: options.onError,
    ...(options.batchBudget ? { budget: options.batchBudget } : {}),
    ...(yieldWhen ? { yieldWhen } : {}),
    afterDrain: async (schema) => {
      if (active?.schema === schema) await active.projection.afterCommit?.(db, schema);
    },
    ...(options.onProgress || options.onSlice
      ? {
          onSlice: (schema: string) => {
            options.onSlice?.(schema);
            options.onProgress?.(schema);
          },
        }
      : {}),
  });

  // Loops resolve one at a time: a switch closes the old source and opens the new one once.
  let resolving: Promise<unknown> = Promise.resolve();
  function resolve(): Promise<{ t: ResolvedTarget; src: MessageSource }> {
    const next = resolving.then(async () => {
      const t = await target.current(db);
      if (t.schema !== active?.schema || !source) {
        if (migrated !== t.schema) {
          await t.projection.migrate(db, t.schema);
          migrated = t.schema;
        }
        const previous = source;
        source = null;
        checkpoint = null;
        await previous?.close();
        active = t;
        source = await options.source(t);
        fresh = true;
      }
      active = t;
      return { t, src: source };
    });
    resolving = next.catch(() => {});
    return next;
  }

  /** Applies one batch: null when nothing was readable, else whether more may follow at once. */
  async function step(t: ResolvedTarget, src: MessageSource): Promise<boolean | null> {
    const name = t.projection.name;
    const limit = sizer.next(behind);
    const batch = await src.read({ from: checkpoint, batchSize: limit });
    if (!batch) return null;
    const partial = src.capabilities.partialBatches ? control : undefined;
    let outcome: CommitOutcome | undefined;
    let heldSince = 0;
    try {
      // One span per batch, parented or linked to the traces that wrote its records.
      await traceRecordBatch(
        name,
        batch.records,
        () =>
          db
            .transaction()
            .execute(async (trx) => {
              // From the first statement to COMMIT: the time the session is held.
              heldSince = performance.now();
              await target.confirm(trx, t);
              outcome = await batch.commit(trx, async (stored) => {
                const records: DecodedRecord[] = [];
                const at: number[] = [];
                stored.forEach((s, i) => {
                  const decoded = decodeRecord(s);
                  // Unknown types come from a newer writer; skipping keeps older projectors running.
                  if (!decoded) return;
                  records.push(decoded);
                  at.push(i);
                });
                const done = await t.projection.handle(trx, t.schema, records, partial);
                // Stopped early for a waiting caller: the source's records through the last one
                // applied (records this release cannot decode after it come again).
                if (typeof done === 'number' && done < records.length) {
                  return done === 0 ? 0 : at[done - 1]! + 1;
                }
                return stored.length;
              });
            })
            .then(() => sizer.observe(outcome?.applied ?? 0, performance.now() - heldSince)),
        {
          'stratagate.schema': t.schema,
          'stratagate.position.from': batch.from,
          'stratagate.position.to': batch.to,
          ...batch.attributes,
        },
      );
    } catch (error) {
      checkpoint = null;
      batch.settle({ failed: error });
      throw error;
    }
    const done = outcome!;
    batch.settle({ committed: done });
    if (done.moved) {
      checkpoint = null;
      return true;
    }
    checkpoint = done.checkpoint;
    lane.kick(t.schema);
    await t.projection.afterCommit?.(db, t.schema);
    // The log's own upkeep (its planner statistics, ADR 0029), here rather than on the append path.
    await src.maintain?.();
    await reportLag(name, src, done);
    options.onBatch?.({
      schema: t.schema,
      from: batch.from,
      to: done.checkpoint.position,
      records: done.applied,
      attributes: batch.attributes,
    });
    options.onProgress?.(t.schema);
    // A batch cut short for a waiting caller has more behind it.
    return done.applied < batch.records.length || batch.records.length >= limit;
  }

  /** Records still to apply after this batch; a metric only, so a failed read is ignored. */
  async function reportLag(name: string, src: MessageSource, done: CommitOutcome): Promise<void> {
    if (done.lag) {
      recordConsumerLag(name, done.lag.partition, done.lag.records);
      return;
    }
    try {
      behind = Math.max(0, (await src.head()) - done.checkpoint.position);
      recordConsumerLag(name, undefined, behind);
    } catch {
      // The next batch reports again.
    }
  }

  /** Applies batches until nothing more is readable; deferred work may still be running. */
  async function advance(): Promise<{ t: ResolvedTarget; src: MessageSource }> {
    let current = await resolve();
    for (;;) {
      try {
        const more = await step(current.t, current.src);
        if (more === null) {
          // Nothing readable past the checkpoint: caught up, as far as this source can tell now.
          // A source in one total order knows from the empty read itself; another (Kafka) asks
          // its brokers, so only for a caller that listens (its lag is reported per batch).
          const ask = options.onCaughtUp || current.src.capabilities.globalOrder;
          if (ask && (await current.src.caughtUp())) {
            recordConsumerLag(current.t.projection.name, undefined, 0);
            behind = 0;
            options.onCaughtUp?.();
          }
          break;
        }
        // A short batch means we reached the (visible) end of the log.
        if (!more) break;
      } catch (error) {
        if (error instanceof TargetMoved) {
          // Reads switched to another version: continue that one from its own checkpoint.
          current = await resolve();
          continue;
        }
        // Another runner applied this range first: the rollback is the idempotent outcome.
        if (!(error instanceof CheckpointMoved)) throw error;
      }
    }
    return current;
  }

  async function catchUp(): Promise<number> {
    const { signal } = options;
    for (;;) {
      // As many loops as the live runner: batches of other partitions side by side.
      const { t, src } = (await Promise.all(Array.from({ length: loops }, () => advance())))[0]!;
      if (signal?.aborted) return (await src.checkpoint()).position;
      if (await src.caughtUp()) {
        await lane.settle(t.schema);
        return (checkpoint ?? (await src.checkpoint())).position;
      }
      await src.wait(idleMs, signal);
    }
  }

  let running = false;
  let stopping = new AbortController();
  let workers: Promise<void>[] = [];
  async function run(): Promise<void> {
    while (running) {
      try {
        const { t } = await advance();
        // Work queued before this source opened (before this process started, by a crashed
        // one, before a switch) is drained once; the live loop does not wait for it.
        if (fresh) lane.kick(t.schema);
        fresh = false;
      } catch (error) {
        options.onError?.(error);
      }
      if (!running) break;
      await (source?.wait(idleMs, stopping.signal) ?? sleepUnlessAborted(idleMs, stopping.signal));
    }
  }

  return {
    catchUp,
    async open() {
      await resolve();
    },
    source: () => source,
    start() {
      if (running) return;
      running = true;
      stopping = new AbortController();
      workers = Array.from({ length: loops }, () => run());
    },
    async stop() {
      running = false;
      stopping.abort();
      await Promise.all(workers);
      workers = [];
      await resolving;
      const current = source;
      source = null;
      await current?.close();
      await lane.stop();
    },
    async position() {
      const { src } = await resolve();
      return (await src.checkpoint()).position;
    },
  };
}
