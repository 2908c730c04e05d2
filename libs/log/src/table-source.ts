import type { AnyDb } from '@stratagate/store';
import type { MessageLog } from './message-log.ts';
import {
  CheckpointMoved,
  sleepUnlessAborted,
  type Checkpoint,
  type MessageSource,
  type SourceBatch,
} from './message-source.ts';

/** A consumer's position in the table log, stored where its writes go (its own schema). */
export interface PositionCheckpoints {
  read(q: AnyDb): Promise<number>;
  /**
   * Compare-and-set in the consumer's transaction: `ok` moved it from `expected` to `next`;
   * anything else means another consumer got there first (the transaction must roll back).
   */
  store(tx: AnyDb, expected: number, next: number): Promise<'ok' | string>;
}

export interface TableSourceOptions {
  log: MessageLog;
  /** Where the checkpoint is read outside a batch. */
  db: AnyDb;
  checkpoints: PositionCheckpoints;
  /** Delay after a wake-up so bursts come in larger batches (default 20 ms). */
  coalesceMs?: number;
}

const internals = new WeakMap<MessageSource, PositionCheckpoints>();

/**
 * The MessageSource of a log read by position (`readAll`: the Postgres table, or any log with a
 * global order). The checkpoint is the last position applied, moved by compare-and-set in the
 * batch's transaction; a batch may stop early (the rest comes again), which is how a batch gives
 * way to a waiting append on the embedded store (ADR 0023).
 */
export function createTableSource(options: TableSourceOptions): MessageSource {
  const { log, db, checkpoints } = options;
  const coalesceMs = options.coalesceMs ?? 20;
  const at = (position: number): Checkpoint => ({ position });

  const source: MessageSource = {
    name: log.name,
    capabilities: { globalOrder: true, partialBatches: true, concurrentBatches: false },

    async read({ from, batchSize, signal }) {
      if (signal?.aborted) return null;
      const position = from?.position ?? (await checkpoints.read(db));
      const stored = await log.readAll(position, batchSize);
      const last = stored[stored.length - 1];
      if (!last) return null;
      const batch: SourceBatch = {
        records: stored,
        from: position,
        to: last.position,
        attributes: {},
        async commit(tx, apply) {
          const done = (await apply(stored)) ?? stored.length;
          // Stopped early: the checkpoint goes after the last record applied.
          const to =
            done < stored.length ? (stored[done - 1]?.position ?? position) : last.position;
          const outcome = await checkpoints.store(tx, position, to);
          if (outcome !== 'ok') throw new CheckpointMoved(outcome);
          return { applied: done, checkpoint: at(to), moved: false };
        },
        settle() {},
      };
      return batch;
    },

    async wait(idleMs, signal) {
      if (signal?.aborted) return;
      const wake = new AbortController();
      const unsubscribe = log.onAppended(() => wake.abort());
      const stop = () => wake.abort();
      signal?.addEventListener('abort', stop, { once: true });
      try {
        await sleepUnlessAborted(idleMs, wake.signal);
      } finally {
        unsubscribe();
        signal?.removeEventListener('abort', stop);
      }
      if (wake.signal.aborted && !signal?.aborted && coalesceMs > 0) {
        await sleepUnlessAborted(coalesceMs, signal);
      }
    },

    checkpoint: async (q = db) => at(await checkpoints.read(q)),
    behind: (mine, theirs) => Math.max(0, theirs.position - mine.position),
    // Nothing visible past the checkpoint (what read just found) is caught up: a record of an
    // older transaction still in flight belongs to the next pass.
    caughtUp: async () => true,
    head: () => log.headPosition(),

    async handOver(tx, to) {
      const theirs = internals.get(to);
      if (!theirs) throw new Error(`cannot hand a ${log.name} checkpoint over to ${to.name}`);
      if (theirs === checkpoints) return;
      const mine = await checkpoints.read(tx);
      const current = await theirs.read(tx);
      if (current < mine) {
        const outcome = await theirs.store(tx, current, mine);
        if (outcome !== 'ok') throw new CheckpointMoved(outcome);
      }
    },

    ...(log.maintain ? { maintain: () => log.maintain!() } : {}),
    close: async () => {},
  };
  internals.set(source, checkpoints);
  return source;
}
