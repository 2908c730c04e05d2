import { decodeRecord, type DecodedRecord } from '@stratagate/domain';
import { tailLoop, type MessageLog } from '@stratagate/log';
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
  onBatch?: (batch: { schema: string; from: number; to: number; records: number }) => void;
  /**
   * After each committed batch and each committed indexing-lane slice: where the read model is
   * complete may have moved (the checkpoint, or the oldest seal still queued for raw search).
   */
  onProgress?: (schema: string) => void;
}

/** One schema (`schema` + `projection`), or a target that may move (the live version). */
export type ProjectorOptions = ProjectorSettings &
  ({ schema: string; projection: Projection } | { target: ProjectionTarget });

/**
 * Records the projector may be behind the log head and still give way to a waiting append (ADR
 * 0023). Behind a burst the backlog settles about here, so the lag when the burst ends is about
 * this many records' projection time (about 1 s on the embedded store). The consolidator's
 * records for a run of blocks come in hundreds; a lower bound (100) let them end the giving way
 * and put the acknowledgements back behind whole batches.
 */
export const YIELD_BACKLOG = 500;

/**
 * How long `catchUp` waits for records appended before the call that another open transaction
 * still hides. Bounded, so a record this release cannot apply never hangs a caller: it then
 * returns what it reached, as before.
 */
const CATCH_UP_HORIZON_WAIT_MS = 30_000;

export interface Projector {
  /**
   * Applies batches until it reaches the log's head as of the call and the projection's deferred
   * work is done; returns the checkpoint reached. Records another open transaction still hides
   * are waited for (up to 30 s).
   */
  catchUp(): Promise<number>;
  start(): void;
  stop(): Promise<void>;
  position(): Promise<number>;
}

/**
 * Reads the log from the checkpoint and applies each batch in one transaction together with the
 * compare-and-set checkpoint. A crash between append and projection loses nothing: the next run
 * resumes from the stored checkpoint.
 *
 * The target schema is resolved at the start of each pass and confirmed inside every batch's
 * transaction: when a rebuild switches reads to a new version, the batch in flight rolls back
 * and the runner continues the new schema from that schema's own checkpoint (ADR 0009).
 */
export function createProjector(options: ProjectorOptions): Projector {
  const { db, log } = options;
  const target =
    'target' in options ? options.target : fixedTarget(options.schema, options.projection);
  const sizer = new BatchSizer({ budget: options.batchBudget, max: options.batchSize ?? 500 });
  // Records in the log past the last batch, as last seen (the lag report reads the head).
  let behind = 0;
  const idleMs = options.idleMs ?? 200;
  let active: ResolvedTarget | null = null;
  let migrated: string | null = null;
  // The checkpoint is read once and then tracked here; the compare-and-set in every batch's
  // transaction catches another runner moving it, and we re-read then.
  let checkpoint: number | null = null;
  // Batches give way only while the projector keeps up: behind a burst they hold on, and the
  // appends wait (backpressure, ADR 0019), or ingest would outrun projection (ADR 0023).
  const yieldWhen = options.yieldWhen;
  const control = yieldWhen
    ? { shouldYield: () => behind <= YIELD_BACKLOG && yieldWhen() }
    : undefined;

  const lane = deferredLane({
    db,
    work: () => active?.projection.deferred,
    onError: options.onError,
    ...(options.batchBudget ? { budget: options.batchBudget } : {}),
    ...(yieldWhen ? { yieldWhen } : {}),
    afterDrain: async (schema) => {
      if (active?.schema === schema) await active.projection.afterCommit?.(db, schema);
    },
    ...(options.onProgress ? { onSlice: options.onProgress } : {}),
  });

  async function resolve(): Promise<ResolvedTarget> {
    const next = await target.current(db);
    if (next.schema !== active?.schema) checkpoint = null;
    active = next;
    if (migrated !== next.schema) {
      await next.projection.migrate(db, next.schema);
      migrated = next.schema;
    }
    return next;
  }

  /** Applies one batch; `full` when it took as many records as it was allowed. */
  async function step(t: ResolvedTarget): Promise<{ full: boolean }> {
    const name = t.projection.name;
    const from = checkpoint ?? (await readCheckpoint(db, t.schema, name));
    checkpoint = from;
    const limit = sizer.next(behind);
    const stored = await log.readAll(from, limit);
    if (stored.length === 0) {
      // Nothing visible past the checkpoint: caught up.
      recordConsumerLag(name, undefined, 0);
      behind = 0;
      return { full: false };
    }
    const records: DecodedRecord[] = [];
    for (const s of stored) {
      const decoded = decodeRecord(s);
      // Unknown types come from a newer writer; skipping keeps older projectors running.
      if (decoded) records.push(decoded);
    }
    let to = stored[stored.length - 1]!.position;
    let applied = stored.length;
    let heldSince = 0;
    try {
      // One span per batch, parented or linked to the traces that wrote its records.
      await traceRecordBatch(
        name,
        stored,
        () =>
          db
            .transaction()
            .execute(async (trx) => {
              // From the first statement to COMMIT: the time the session is held.
              heldSince = performance.now();
              await target.confirm(trx, t);
              const done = await t.projection.handle(trx, t.schema, records, control);
              if (typeof done === 'number' && done < records.length) {
                // Stopped early for a waiting caller: the checkpoint goes after the last record
                // applied (records the log holds but this release cannot decode come again).
                to = records[done - 1]!.meta.position;
                applied = stored.findIndex((r) => r.position === to) + 1;
              }
              const outcome = await storeCheckpoint(trx, t.schema, name, from, to);
              if (outcome !== 'ok') throw new CheckpointMoved(outcome);
            })
            .then(() => sizer.observe(applied, performance.now() - heldSince)),
        {
          'stratagate.schema': t.schema,
          'stratagate.position.from': from,
          'stratagate.position.to': to,
        },
      );
    } catch (error) {
      checkpoint = null;
      throw error;
    }
    checkpoint = to;
    lane.kick(t.schema);
    await t.projection.afterCommit?.(db, t.schema);
    // The log's own upkeep (its planner statistics, ADR 0029), here rather than on the append path.
    await log.maintain?.();
    await reportLag(name, to);
    options.onBatch?.({ schema: t.schema, from, to, records: applied });
    options.onProgress?.(t.schema);
    // A batch cut short for a waiting caller has more behind it.
    return { full: applied < stored.length || stored.length >= limit };
  }

  /** Records still to apply after this batch; a metric only, so a failed read is ignored. */
  async function reportLag(name: string, to: number): Promise<void> {
    try {
      behind = Math.max(0, (await log.headPosition()) - to);
      recordConsumerLag(name, undefined, behind);
    } catch {
      // The next batch reports again.
    }
  }

  /** Applies batches until the log has nothing newer; deferred work may still be running. */
  async function advance(): Promise<ResolvedTarget> {
    let t = await resolve();
    for (;;) {
      try {
        // A short batch means we reached the (visible) end of the log.
        if (!(await step(t)).full) break;
      } catch (error) {
        if (error instanceof TargetMoved) {
          // Reads switched to another version: continue that one from its own checkpoint.
          t = await resolve();
          continue;
        }
        // Another runner applied this range first: the rollback is the idempotent outcome.
        if (!(error instanceof CheckpointMoved)) throw error;
      }
    }
    return t;
  }

  async function catchUp(): Promise<number> {
    // The log's head as of this call: on a Postgres server, records committed after a
    // transaction that is still open (in any database of the server) stay out of sight until it
    // ends, so "nothing more visible" is not yet "caught up" with what was appended before.
    const head = await log.headPosition();
    let t = await advance();
    const waitUntil = performance.now() + CATCH_UP_HORIZON_WAIT_MS;
    let reached = checkpoint ?? (await readCheckpoint(db, t.schema, t.projection.name));
    while (reached < head && performance.now() < waitUntil) {
      if (process.env.DEBUG_CATCHUP) {
        const { sql } = await import('kysely');
        const r = await sql`select pid, datname, state, backend_xid::text, left(query, 200) as q, now() - xact_start as age from pg_stat_activity where backend_xid is not null`.execute(db);
        console.error('catchUp wait', t.schema, reached, head, JSON.stringify(r.rows));
      }
      await new Promise((r) => setTimeout(r, 20));
      t = await advance();
      reached = checkpoint ?? (await readCheckpoint(db, t.schema, t.projection.name));
    }
    await lane.settle(t.schema);
    return checkpoint ?? readCheckpoint(db, t.schema, t.projection.name);
  }

  let started = false;
  const loop = tailLoop({
    log,
    // The live loop does not wait for the deferred work: it runs beside the next batches.
    work: async () => {
      const t = await advance();
      // Work queued before this process started (or by a crashed one) is drained once at start.
      if (!started) lane.kick(t.schema);
      started = true;
    },
    idleMs,
    coalesceMs: options.coalesceMs ?? 20,
    onError: options.onError,
  });
  return {
    catchUp,
    start: loop.start,
    async stop() {
      await loop.stop();
      await lane.stop();
    },
    async position() {
      const t = await resolve();
      return readCheckpoint(db, t.schema, t.projection.name);
    },
  };
}

class CheckpointMoved extends Error {
  constructor(readonly outcome: string) {
    super(`checkpoint moved (${outcome})`);
  }
}
