import { decodeRecord, type DecodedRecord } from '@stratagate/domain';
import { tailLoop, type MessageLog } from '@stratagate/log';
import type { AnyDb } from '@stratagate/store';
import type { Projection } from './projection.ts';
import { readCheckpoint, storeCheckpoint } from './checkpoints.ts';

export interface ProjectorOptions {
  db: AnyDb;
  log: MessageLog;
  schema: string;
  projection: Projection;
  batchSize?: number;
  /** Poll interval when idle; in-process appends wake the loop. */
  idleMs?: number;
  /** Delay after a wake-up so bursts are applied in larger batches (default 20 ms). */
  coalesceMs?: number;
  onError?: (error: unknown) => void;
}

export interface Projector {
  /** Applies batches until the log has nothing newer; returns the checkpoint reached. */
  catchUp(): Promise<number>;
  start(): void;
  stop(): Promise<void>;
  position(): Promise<number>;
}

/**
 * Reads the log from the checkpoint and applies each batch in one transaction together with the
 * compare-and-set checkpoint. A crash between append and projection loses nothing: the next run
 * resumes from the stored checkpoint.
 */
export function createProjector(options: ProjectorOptions): Projector {
  const { db, log, schema, projection } = options;
  const batchSize = options.batchSize ?? 500;
  const idleMs = options.idleMs ?? 200;
  let migrated = false;

  async function ensureMigrated() {
    if (migrated) return;
    await projection.migrate(db, schema);
    migrated = true;
  }

  // The checkpoint is read once and then tracked here; the compare-and-set in every batch's
  // transaction catches another runner moving it, and we re-read then.
  let checkpoint: number | null = null;

  async function step(): Promise<number> {
    const from = checkpoint ?? (await readCheckpoint(db, schema, projection.name));
    checkpoint = from;
    const stored = await log.readAll(from, batchSize);
    if (stored.length === 0) return 0;
    const records: DecodedRecord[] = [];
    for (const s of stored) {
      const decoded = decodeRecord(s);
      // Unknown types come from a newer writer; skipping keeps older projectors running.
      if (decoded) records.push(decoded);
    }
    const to = stored[stored.length - 1]!.position;
    try {
      await db.transaction().execute(async (trx) => {
        await projection.handle(trx, schema, records);
        const outcome = await storeCheckpoint(trx, schema, projection.name, from, to);
        if (outcome !== 'ok') throw new CheckpointMoved(outcome);
      });
    } catch (error) {
      checkpoint = null;
      throw error;
    }
    checkpoint = to;
    return stored.length;
  }

  async function catchUp(): Promise<number> {
    await ensureMigrated();
    for (;;) {
      try {
        // A short batch means we reached the (visible) end of the log.
        if ((await step()) < batchSize) break;
      } catch (error) {
        // Another runner applied this range first: the rollback is the idempotent outcome.
        if (!(error instanceof CheckpointMoved)) throw error;
      }
    }
    return checkpoint ?? readCheckpoint(db, schema, projection.name);
  }

  const loop = tailLoop({
    log,
    work: catchUp,
    idleMs,
    coalesceMs: options.coalesceMs ?? 20,
    onError: options.onError,
  });
  return {
    catchUp,
    start: loop.start,
    stop: loop.stop,
    async position() {
      await ensureMigrated();
      return readCheckpoint(db, schema, projection.name);
    },
  };
}

class CheckpointMoved extends Error {
  constructor(readonly outcome: string) {
    super(`checkpoint moved (${outcome})`);
  }
}
