import { sql } from 'kysely';
import {
  restoreSpaceWriter,
  SPACE_WRITER_SNAPSHOT_FORMAT,
  type SpaceRef,
  type SpaceWriterSnapshot,
  type SpaceWriterState,
} from '@stratagate/domain';
import { migrateUnderLock, type AnyDb } from '@stratagate/store';

/**
 * Where the write side keeps snapshots of each space's folded state (ADR 0024), so that the first
 * write to a space after a start reads the records after the snapshot, not the space's whole
 * history. A snapshot is a cache of a fold over the log: losing one costs a longer fold, never a
 * wrong decision (the append's expected version is checked against the log itself).
 */
export interface WriterSnapshots {
  /** The last snapshot of `space` on log `logName`, or null (none, or of another format). */
  load(logName: string, space: SpaceRef): Promise<SpaceWriterState | null>;
  /** Stores `snapshot` unless one at a later version is already there. */
  save(logName: string, space: SpaceRef, snapshot: SpaceWriterSnapshot): Promise<void>;
  /** Forgets the snapshot of `space` (it was ahead of the log). */
  discard(logName: string, space: SpaceRef): Promise<void>;
}

/** Snapshots in the table `writer.space_snapshots` of the node's database. */
export class WriterSnapshotStore implements WriterSnapshots {
  constructor(private readonly db: AnyDb) {}

  /** Idempotent; role processes starting together take turns. */
  async migrate(): Promise<void> {
    await migrateUnderLock(this.db, 'stratagate.writer', 'migrate', async (trx) => {
      await sql`create schema if not exists writer`.execute(trx);
      await sql`create table if not exists writer.space_snapshots (
        log_name text not null,
        tenant_id text not null,
        space_id text not null,
        format int not null,
        version bigint not null,
        state jsonb not null,
        saved_at timestamptz not null default now(),
        primary key (log_name, tenant_id, space_id)
      )`.execute(trx);
    });
  }

  async load(logName: string, space: SpaceRef): Promise<SpaceWriterState | null> {
    const { rows } = await sql<{ format: number; state: unknown }>`
      select format, state from writer.space_snapshots
      where log_name = ${logName} and tenant_id = ${space.tenantId} and space_id = ${space.spaceId}
    `.execute(this.db);
    const row = rows[0];
    if (!row || row.format !== SPACE_WRITER_SNAPSHOT_FORMAT) return null;
    return restoreSpaceWriter(row.state);
  }

  async save(logName: string, space: SpaceRef, snapshot: SpaceWriterSnapshot): Promise<void> {
    await sql`
      insert into writer.space_snapshots as s
        (log_name, tenant_id, space_id, format, version, state)
      values (${logName}, ${space.tenantId}, ${space.spaceId}, ${SPACE_WRITER_SNAPSHOT_FORMAT},
        ${snapshot.version}, ${JSON.stringify(snapshot)}::jsonb)
      on conflict (log_name, tenant_id, space_id) do update
        set format = excluded.format, version = excluded.version, state = excluded.state,
          saved_at = now()
        where s.version < excluded.version or s.format <> excluded.format
    `.execute(this.db);
  }

  async discard(logName: string, space: SpaceRef): Promise<void> {
    await sql`
      delete from writer.space_snapshots
      where log_name = ${logName} and tenant_id = ${space.tenantId} and space_id = ${space.spaceId}
    `.execute(this.db);
  }
}
