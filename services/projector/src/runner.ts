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
  /** Poll interval when idle; in-process appends wake the loop at once. */
  idleMs?: number;
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

  async function step(): Promise<number> {
    const from = await readCheckpoint(db, schema, projection.name);
    const stored = await log.readAll(from, batchSize);
    if (stored.length === 0) return 0;
    const records: DecodedRecord[] = [];
    for (const s of stored) {
      const decoded = decodeRecord(s);
      // Unknown types come from a newer writer; skipping keeps older projectors running.
      if (decoded) records.push(decoded);
    }
    const to = stored[stored.length - 1]!.position;
    await db.transaction().execute(async (trx) => {
      await projection.handle(trx, schema, records);
      const outcome = await storeCheckpoint(trx, schema, projection.name, from, to);
      if (outcome !== 'ok') throw new CheckpointMoved(outcome);
    });
    return stored.length;
  }

  async function catchUp(): Promise<number> {
    await ensureMigrated();
    for (;;) {
      try {
        const n = await step();
        if (n === 0) break;
      } catch (error) {
        // Another runner applied this range first: the rollback is the idempotent outcome.
        if (!(error instanceof CheckpointMoved)) throw error;
      }
    }
    return readCheckpoint(db, schema, projection.name);
  }

  const loop = tailLoop({ log, work: catchUp, idleMs, onError: options.onError });
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
