import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { BroadcastChannel } from 'node:worker_threads';
import type { SpaceRef, StoredRecord } from '@stratagate/domain';
import { keepPlannerStatistics, type Database } from '@stratagate/store';
import { sql, type RawBuilder } from 'kysely';
import type { LogCapabilities, MessageLog } from './message-log.ts';
import { findFirstStored, readSpaceVersion } from './postgres-log.append.ts';
import { createGroupCommitter } from './postgres-log.group-commit.ts';
import {
  logTables,
  migrateLog,
  recordColumns,
  toStoredRecord,
  type RecordRow,
} from './postgres-log.schema.ts';

export const postgresLogCapabilities: LogCapabilities = {
  expectedVersion: true,
  globalOrder: true,
  idempotentAppend: true,
};

/**
 * Safe tailing. Positions come from a sequence, so a transaction can take position 10, another
 * take 11 and commit first. A reader that returned 11 and checkpointed it would never see 10.
 * readAll therefore returns only rows whose writing transaction is older than every transaction
 * still running (`transaction_id < pg_snapshot_xmin(pg_current_snapshot())`): those are final.
 * That set is a prefix of the positions because appends assign their transaction id and draw their
 * positions inside one global critical section (postgres-log.append.ts), so position order equals
 * transaction-id order; any row still to become visible belongs to a younger transaction and has a
 * higher position than every row returned. Costs: visibility waits for the oldest running write
 * transaction on the server (any database); readAll must run outside a transaction that has
 * written (its own id would hold the horizon back). On PGlite, the single session means no
 * transaction is running while readAll runs, so every committed row is visible at once.
 */
const safeHorizon = sql`(select pg_snapshot_xmin(pg_current_snapshot()))`;

export async function createPostgresLog(
  database: Database,
  options: { schema?: string } = {},
): Promise<MessageLog> {
  const { db } = database;
  const t = logTables(options.schema ?? 'log');
  await migrateLog(db, t);
  // Appends are what callers wait on: on the embedded store they queue ahead of background work.
  const committer = createGroupCommitter(database.foreground ?? db, t);
  const listeners = new Set<() => void>();
  let closed = false;
  // Other threads of this process with the same log (the background roles' worker, ADR 0016 and
  // 0030) hear of appends at once, as listeners here do. The channel is named by a digest of the
  // server URL (no credentials in names) or of the embedded store's directory, and the schema.
  const store =
    database.target.kind === 'postgres'
      ? database.target.url
      : database.target.dataDir
        ? `pglite:${resolve(database.target.dataDir)}`
        : null;
  const channel = store
    ? new BroadcastChannel(
        `stratagate.log:${createHash('sha256').update(store).digest('hex').slice(0, 16)}:${t.schema}`,
      )
    : null;
  channel?.unref();

  const assertOpen = () => {
    if (closed) throw new Error(`message log "${t.schema}" is closed`);
  };
  const query = async (q: RawBuilder<RecordRow>): Promise<StoredRecord[]> => {
    assertOpen();
    const { rows } = await q.execute(db);
    return rows.map(toStoredRecord);
  };
  const notifyHere = () => {
    for (const listener of [...listeners]) {
      try {
        listener();
      } catch (error) {
        // The append is durable: a failing wake-up must not make the caller retry it.
        process.emitWarning(`message log onAppended listener failed: ${String(error)}`);
      }
    }
  };
  const notify = () => {
    notifyHere();
    channel?.postMessage(null);
  };
  if (channel) channel.onmessage = () => notifyHere();

  return {
    name: `postgres-table(${t.schema})`,
    capabilities: postgresLogCapabilities,

    async append(space, records, appendOptions) {
      assertOpen();
      const result = await committer.append(space, records, appendOptions);
      if (result.status === 'appended' && result.records.length > 0) notify();
      return result;
    },

    readSpace: (space, afterVersion, limit) =>
      query(sql<RecordRow>`
        select ${recordColumns} from ${t.records}
        where tenant_id = ${space.tenantId} and space_id = ${space.spaceId}
          and space_version > ${afterVersion}
        order by space_version limit ${limit}`),

    readAll: (afterPosition, limit) =>
      query(sql<RecordRow>`
        select ${recordColumns} from ${t.records}
        where position > ${afterPosition} and transaction_id < ${safeHorizon}
        order by position limit ${limit}`),

    async findByIdempotencyKey(space: SpaceRef, key: string) {
      assertOpen();
      return findFirstStored(db, t, space, [key]);
    },

    async readAt(space, position) {
      const [record] = await query(sql<RecordRow>`
        select ${recordColumns} from ${t.records}
        where position = ${position}
          and tenant_id = ${space.tenantId} and space_id = ${space.spaceId}`);
      return record ?? null;
    },

    async spaceVersion(space) {
      assertOpen();
      return readSpaceVersion(db, t, space);
    },

    async headPosition() {
      assertOpen();
      const { rows } = await sql<{ position: number | string }>`
        select position from ${t.records} order by position desc limit 1`.execute(db);
      return rows[0] ? Number(rows[0].position) : 0;
    },

    onAppended(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    async maintain() {
      assertOpen();
      // PGlite runs no autovacuum, and a server's may lag behind a burst (ADR 0029).
      await keepPlannerStatistics(db, t.schema, {
        // A space the statistics do not know is analysed in once it has 1,000 records.
        keySizes: [
          {
            column: 'space_id',
            sizes: sql`select space_id as value, version as n from ${t.streams}`,
          },
        ],
      });
    },

    async close() {
      // The Database belongs to the caller; closing the log only stops this instance.
      closed = true;
      listeners.clear();
      channel?.close();
    },
  };
}
