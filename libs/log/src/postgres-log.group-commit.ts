import type { NewRecord, SpaceRef, StoredRecord } from '@stratagate/domain';
import type { AnyDb } from '@stratagate/store';
import { sql } from 'kysely';
import { assertAppendable } from './append-validation.ts';
import { appendRecords } from './postgres-log.append.ts';
import { WrongExpectedVersionError, type AppendOptions, type AppendResult } from './message-log.ts';
import { batchInput, callAppendBatch } from './postgres-log.append-batch.ts';
import { positionLock, toStoredRecord, type LogTables } from './postgres-log.schema.ts';

interface Pending {
  space: SpaceRef;
  records: NewRecord[];
  options: AppendOptions;
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

// Rows per batch: bounds the JSON one call carries.
const MAX_ROWS_PER_FLUSH = 2000;

/**
 * Group commit. Appends that arrive while a flush is running wait and go together into the next
 * batch, which is one call of the log's append function (`postgres-log.append-batch.ts`): one
 * statement and one round trip that takes every space lock (sorted, so two processes cannot
 * deadlock), reads versions and idempotency keys, decides each append's outcome in arrival order
 * and inserts every row inside the global position section. Each append keeps its own outcome
 * (appended, duplicate, wrong expected version): the batch changes cost, not meaning.
 */
export function createGroupCommitter(db: AnyDb, t: LogTables) {
  const queue: Pending[] = [];
  let flushing = false;
  let warned = false;

  // One event-loop turn of gathering before each batch: on the embedded store every query runs
  // synchronously in WASM, so without it the first request of a burst would always go alone.
  const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

  async function flushLoop() {
    flushing = true;
    try {
      while (queue.length > 0) {
        await nextTurn();
        const batch = takeBatch();
        try {
          await commitBatch(batch);
        } catch (error) {
          // Something unexpected (e.g. a racing writer from another process): fall back to one
          // transaction per append so each caller gets its own exact answer. Said once per
          // process, so a function that keeps failing (ADR 0015) does not go unnoticed.
          if (!warned) {
            warned = true;
            process.emitWarning(
              `group commit of ${batch.length} appends failed, appending them one by one: ${String(error)}`,
            );
          }
          for (const p of batch) {
            appendRecords(db, t, p.space, p.records, p.options).then(p.resolve, p.reject);
          }
        }
      }
    } finally {
      flushing = false;
    }
  }

  function takeBatch(): Pending[] {
    const batch: Pending[] = [];
    let rows = 0;
    while (queue.length > 0) {
      const next = queue[0]!;
      if (batch.length > 0 && rows + next.records.length > MAX_ROWS_PER_FLUSH) break;
      batch.push(next);
      rows += next.records.length;
      queue.shift();
    }
    return batch;
  }

  async function commitBatch(batch: Pending[]) {
    const { appends, records } = batchInput(
      batch.map((p) => ({
        space: p.space,
        records: p.records,
        expectedVersion: p.options.expectedVersion,
      })),
    );

    const outcome = await db.connection().execute(async (conn) => {
      try {
        const { rows } = await callAppendBatch(t, appends, records).execute(conn);
        return rows[0]!.result;
      } catch (error) {
        // A failure inside the position section leaves the session lock held past the
        // statement's rollback (unlocking a lock not held only warns).
        await sql`select pg_advisory_unlock(${positionLock(t)})`.execute(conn).catch(() => {});
        throw error;
      }
    });

    const inserted = new Map(
      outcome.inserted.map(([id, position, recordedAt]) => [id, { position, recordedAt }]),
    );
    // Stored records by their index in the batch's records (what in-batch duplicates point at).
    const storedAt: StoredRecord[] = [];
    let offset = 0;
    batch.forEach((p, i) => {
      const planned = outcome.plans[i]!;
      const first = offset;
      offset += p.records.length;
      switch (planned.kind) {
        case 'append': {
          const firstVersion = planned.version - p.records.length + 1;
          const stored = p.records.map((record, j): StoredRecord => {
            const row = inserted.get(record.metadata.recordId)!;
            return (storedAt[first + j] = {
              type: record.type,
              data: record.data ?? null,
              metadata: record.metadata,
              position: Number(row.position),
              spaceVersion: firstVersion + j,
              recordedAt: row.recordedAt,
            });
          });
          p.resolve({ status: 'appended', records: stored, spaceVersion: planned.version });
          return;
        }
        case 'duplicate': {
          const existing = planned.existing
            ? toStoredRecord(planned.existing)
            : storedAt[planned.batchRecord!]!;
          p.resolve({ status: 'duplicate', existing, spaceVersion: planned.version });
          return;
        }
        case 'conflict':
          p.reject(new WrongExpectedVersionError(p.space, planned.expected, planned.actual));
          return;
        default: {
          const never: never = planned;
          return never;
        }
      }
    });
  }

  return {
    append(
      space: SpaceRef,
      records: NewRecord[],
      options: AppendOptions = {},
    ): Promise<AppendResult> {
      assertAppendable(space, records);
      if (records.length === 0 || records.length > MAX_ROWS_PER_FLUSH) {
        return appendRecords(db, t, space, records, options);
      }
      return new Promise<AppendResult>((resolve, reject) => {
        queue.push({ space, records, options, resolve, reject });
        if (!flushing) void flushLoop();
      });
    },
  };
}
