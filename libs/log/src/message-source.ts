import type { StoredRecord } from '@stratagate/domain';
import type { AnyDb } from '@stratagate/store';

/**
 * Where one consumer stands in a source (ADR 0049). Opaque: only the source that issued it reads
 * its contents; `position` summarises it for reports and progress (records consumed: the table
 * log's position, or the sum of a Kafka group's next offsets). Never compare two checkpoints by
 * `position`; ask the source (`behind`).
 */
export interface Checkpoint {
  readonly position: number;
}

export interface ReadOptions {
  /** The consumer's checkpoint as it last knew it; null: the one stored. */
  from: Checkpoint | null;
  /** Records in the batch at most. */
  batchSize: number;
  /** An aborted signal makes `read` return null and `wait` return at once. */
  signal?: AbortSignal;
}

export interface CommitOutcome {
  /** Records handed to `apply` that it applied (a prefix when it stopped early). */
  applied: number;
  /** The consumer's checkpoint after the transaction (stored in it). */
  checkpoint: Checkpoint;
  /**
   * False when the batch was not applied because the stored checkpoint had moved past it (another
   * consumer applied it first) or does not reach it: nothing changed; read again.
   */
  moved: boolean;
  /** Records behind the head after this batch, when the source knows it without a round trip. */
  lag?: { records: number; partition?: number };
}

/**
 * Records to apply in the consumer's own transaction. `commit` runs inside it; `settle` after it
 * committed or rolled back (exactly one of the two outcomes), so the source can let the next
 * batch come (Kafka: resolve or seek the fetch).
 */
export interface SourceBatch {
  /** The records read, in the order they must be applied. */
  readonly records: readonly StoredRecord[];
  /** Checkpoint position before and after the whole batch (reports, traces). */
  readonly from: number;
  readonly to: number;
  /** Labels for traces and metrics (e.g. the partition). */
  readonly attributes: Readonly<Record<string, string>>;
  /**
   * In `tx`: claims the stored checkpoint, hands `apply` the records not applied yet (the source
   * drops what the stored checkpoint says was applied, and on Kafka second copies of a record),
   * and stores the checkpoint after the records applied. `apply` may return how many of them it
   * applied (a prefix, only where `capabilities.partialBatches`).
   */
  commit(
    tx: AnyDb,
    apply: (records: readonly StoredRecord[]) => Promise<number | void>,
  ): Promise<CommitOutcome>;
  settle(result: { committed: CommitOutcome } | { failed: unknown }): void;
}

export interface SourceCapabilities {
  /** `read` returns batches in one total order of all spaces (else: per space in order). */
  globalOrder: boolean;
  /** A batch may be committed partly (`apply` returns a prefix); the rest comes again. */
  partialBatches: boolean;
  /** Batches of different partitions may be applied side by side (one runner, N loops). */
  concurrentBatches: boolean;
}

/**
 * One consumer's view of a message log (emmett's MessageSource): batches read after a
 * checkpoint, applied and checkpointed in the consumer's own transaction. The Postgres table log
 * (`createTableSource`) and a Kafka consumer-group member (`createKafkaSource`) sit behind it.
 */
export interface MessageSource {
  readonly name: string;
  readonly capabilities: SourceCapabilities;
  /** The next batch, or null when nothing is readable now (or the signal aborted). */
  read(options: ReadOptions): Promise<SourceBatch | null>;
  /**
   * Resolves when records may have become readable (an in-process append, a fetched batch), or
   * after `idleMs`, or at once when `signal` aborts.
   */
  wait(idleMs: number, signal?: AbortSignal): Promise<void>;
  /** The consumer's stored checkpoint, as `q` (a transaction) sees it. */
  checkpoint(q?: AnyDb): Promise<Checkpoint>;
  /** Records `theirs` has consumed that `mine` has not (0 when `mine` is as far or further). */
  behind(mine: Checkpoint, theirs: Checkpoint): number;
  /**
   * After `read` found nothing: true when this consumer has applied everything committed to the
   * log (the table: nothing visible past the checkpoint; Kafka: the group at every partition's
   * end).
   */
  caughtUp(): Promise<boolean>;
  /** The log's head in checkpoint positions (lag = head − checkpoint.position). */
  head(): Promise<number>;
  /**
   * In `tx`: gives consumer `to` (of the same log) this consumer's checkpoint, never moving `to`
   * back. A rebuild hands what it built over to the consumer that carries on live.
   */
  handOver(tx: AnyDb, to: MessageSource): Promise<void>;
  /** The log's own upkeep, between batches (ADR 0029). */
  maintain?(): Promise<void>;
  /** Stops reading; batches queued but not taken are given back to the log. */
  close(): Promise<void>;
}

/** The stored checkpoint no longer matches the batch: another consumer moved it. */
export class CheckpointMoved extends Error {
  readonly code = 'checkpoint_moved';
  constructor(readonly outcome: string) {
    super(`checkpoint moved (${outcome})`);
    this.name = 'CheckpointMoved';
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleepUnlessAborted(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
