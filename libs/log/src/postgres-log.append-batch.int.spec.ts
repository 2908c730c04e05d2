import type { NewRecord, SpaceRef } from '@stratagate/domain';
import { type Database } from '@stratagate/store';
import { describeBackend, openTestDatabase } from '@stratagate/store/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshSpace, makeRecord, sleep } from './contract/fixtures.ts';
import type { MessageLog } from './message-log.ts';
import { batchInput, callAppendBatch } from './postgres-log.append-batch.ts';
import { logTables } from './postgres-log.schema.ts';
import { createPostgresLog } from './postgres-log.ts';

const concurrentSessions = Boolean(process.env.DATABASE_URL);
const onServerOnly = concurrentSessions ? '' : ' [skipped: not applicable on PGlite, one session]';

const keyed = (space: SpaceRef, key: string | undefined, n: number): NewRecord =>
  makeRecord(space, { n }, key === undefined ? {} : { idempotencyKey: key });

describe(`the log's append function (group commit in one statement) on ${describeBackend()}`, () => {
  let database: Database;
  let log: MessageLog;
  const schema = 'log_append_batch';
  const t = logTables(schema);

  beforeAll(async () => {
    database = await openTestDatabase('log_append_batch');
    log = await createPostgresLog(database, { schema });
  });
  afterAll(async () => {
    await log?.close();
    await database?.db.destroy();
    await sleep(250);
    await database?.close();
  });

  it('decides every append in arrival order: appended, wrong version, stored and in-batch duplicates', async () => {
    const a = freshSpace('tenant-batch');
    const b = freshSpace('tenant-batch');
    const first = await log.append(a, [keyed(a, 'k-old', 0)]);
    expect(first.status).toBe('appended');
    const stored = first.status === 'appended' ? first.records[0]! : null;

    const batch = [
      { space: a, records: [keyed(a, 'k1', 1), keyed(a, undefined, 2)], expectedVersion: 1 },
      { space: a, records: [keyed(a, undefined, 3)], expectedVersion: 1 },
      { space: a, records: [keyed(a, 'k-old', 4)] },
      { space: b, records: [keyed(b, 'k1', 5)], expectedVersion: 0 },
      { space: a, records: [keyed(a, undefined, 6), keyed(a, 'k1', 7)] },
      { space: a, records: [keyed(a, undefined, 8)] },
    ];
    const { appends, records } = batchInput(batch);
    const { rows } = await callAppendBatch(t, appends, records).execute(database.db);
    const { plans, inserted } = rows[0]!.result;

    expect(plans).toEqual([
      { kind: 'append', version: 3 },
      { kind: 'conflict', expected: 1, actual: 3 },
      {
        kind: 'duplicate',
        version: 3,
        existing: {
          position: stored!.position,
          space_version: 1,
          type: stored!.type,
          metadata: stored!.metadata,
          data: stored!.data,
          recorded_at: stored!.recordedAt,
        },
      },
      { kind: 'append', version: 1 },
      // Keys are per space: b's k1 is not a's; a's k1 went in with the first append.
      // Records 0 and 1 are the first append's; record 0 holds a's k1.
      { kind: 'duplicate', version: 3, batchRecord: 0 },
      { kind: 'append', version: 4 },
    ]);
    // Inserted in arrival order: positions follow the appends, versions follow each space.
    const ids = [batch[0]!, batch[3]!, batch[5]!].flatMap((p) =>
      p.records.map((r) => r.metadata.recordId),
    );
    expect(inserted.map(([id]) => id)).toEqual(ids);
    const positions = inserted.map(([, position]) => Number(position));
    expect(positions).toEqual([...positions].sort((x, y) => x - y));
    expect(new Set(positions).size).toBe(4);

    expect(await log.spaceVersion(a)).toBe(4);
    expect(await log.spaceVersion(b)).toBe(1);
    const inA = await log.readSpace(a, 0, 10);
    expect(inA.map((r) => [r.spaceVersion, r.data])).toEqual([
      [1, { n: 0 }],
      [2, { n: 1 }],
      [3, { n: 2 }],
      [4, { n: 8 }],
    ]);
    // What the function answered is what readers see.
    const byId = new Map(inA.map((r) => [r.metadata.recordId, r]));
    for (const [id, position, recordedAt] of inserted) {
      if (!byId.has(id)) continue;
      expect(byId.get(id)!.position).toBe(Number(position));
      expect(byId.get(id)!.recordedAt).toBe(recordedAt);
    }
  });

  it('answers each caller of a group commit exactly as the function decided', async () => {
    const space = freshSpace('tenant-batch');
    const results = await Promise.allSettled([
      log.append(space, [keyed(space, 'x', 1)], { expectedVersion: 0 }),
      log.append(space, [keyed(space, 'x', 2)]),
      log.append(space, [keyed(space, undefined, 3)], { expectedVersion: 0 }),
      log.append(space, [keyed(space, undefined, 4)], { expectedVersion: 1 }),
    ]);
    const values = results.map((r) => (r.status === 'fulfilled' ? r.value : r.reason));
    expect(values[0]).toMatchObject({ status: 'appended', spaceVersion: 1 });
    expect(values[1]).toMatchObject({ status: 'duplicate', spaceVersion: 1 });
    expect(values[1].existing.metadata.recordId).toBe(values[0].records[0].metadata.recordId);
    expect(values[2]).toMatchObject({ code: 'wrong_expected_version' });
    expect(values[3]).toMatchObject({ status: 'appended', spaceVersion: 2 });
  });

  it.skipIf(!concurrentSessions)(
    `a call that fails inside the position section releases the session lock${onServerOnly}`,
    async () => {
      const space = freshSpace('tenant-batch');
      const ok = await log.append(space, [keyed(space, undefined, 1)]);
      const taken = ok.status === 'appended' ? ok.records[0]!.metadata.recordId : '';
      // The same record id again: the insert fails on its unique key, after the lock was taken.
      const clash = keyed(space, undefined, 2);
      clash.metadata.recordId = taken;
      await expect(log.append(space, [clash])).rejects.toThrow();
      // Every pooled connection can still enter the section: appends from several at once finish.
      const others = Array.from({ length: 6 }, () => freshSpace('tenant-batch'));
      const done = Promise.all(others.map((s) => log.append(s, [keyed(s, undefined, 1)])));
      const outcome = await Promise.race([
        done.then(() => 'done' as const),
        sleep(5_000).then(() => 'blocked' as const),
      ]);
      expect(outcome).toBe('done');
      const { rows } = await sql<{ n: number }>`
        select count(*)::int as n from pg_locks
        where locktype = 'advisory' and granted and objid = hashtext(${`${schema}:positions`})::oid
      `.execute(database.db);
      expect(rows[0]!.n).toBe(0);
    },
  );
});
