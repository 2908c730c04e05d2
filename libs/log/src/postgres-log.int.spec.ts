import type { StoredRecord } from '@stratagate/domain';
import { type Database } from '@stratagate/store';
import { describeBackend, statisticsValues } from '@stratagate/store/testing';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  freshSpace,
  isStrictlyIncreasing,
  makeRecord,
  numbered,
  range,
  sleep,
  tailUntil,
  sharedTestDatabase,
} from './contract/fixtures.ts';
import { testMessageLog } from './message-log.contract.ts';
import type { MessageLog } from './message-log.ts';
import { appendRecords } from './postgres-log.append.ts';
import { logTables, RECORD_STATISTICS } from './postgres-log.schema.ts';
import { createPostgresLog, postgresLogCapabilities } from './postgres-log.ts';

// One database per file (PGlite in memory, or a fresh database on DATABASE_URL's server) and one
// schema per case: creating a database or a PGlite instance per case would dominate the run time.
const shared = sharedTestDatabase('log');
let schemaCounter = 0;

async function freshLog(): Promise<{ log: MessageLog; schema: string; db: Database }> {
  const db = await shared();
  schemaCounter += 1;
  const schema = `log_case_${schemaCounter}`;
  return { log: await createPostgresLog(db, { schema }), schema, db };
}
const dropSchema = async (db: Database, schema: string) => {
  await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(db.db);
};

testMessageLog(
  `postgres table on ${describeBackend()}`,
  async () => {
    const { log, schema, db } = await freshLog();
    return { log, teardown: () => dropSchema(db, schema) };
  },
  { capabilities: postgresLogCapabilities },
);

// PGlite is one session: a second writer cannot run while a transaction is held open.
const concurrentSessions = Boolean(process.env.DATABASE_URL);
const onServerOnly = concurrentSessions ? '' : ' [skipped: not applicable on PGlite, one session]';
const onPgliteOnly = concurrentSessions ? ' [skipped: on a server other sessions may lag it]' : '';

describe(`postgres table log specifics on ${describeBackend()}`, () => {
  let current: Awaited<ReturnType<typeof freshLog>>;
  beforeEach(async () => {
    current = await freshLog();
  });
  afterEach(async () => {
    await current.log.close();
    await dropSchema(current.db, current.schema);
  });

  it('maintain keeps the planner statistics of the log tables (ADR 0029)', async () => {
    const { log, db, schema } = current;
    const columnStats = async () =>
      Number(
        (
          await sql<{ n: number }>`
            select count(*)::int as n from pg_stats
            where schemaname = ${schema} and tablename = 'records'`.execute(db.db)
        ).rows[0]!.n,
      );
    const space = freshSpace();
    for (let b = 0; b < 20; b += 1) {
      await log.append(
        space,
        Array.from({ length: 25 }, (_, i) =>
          makeRecord(space, { pad: 'x'.repeat(400) }, { idempotencyKey: `k-${b}-${i}` }),
        ),
      );
    }
    // PGlite runs no autovacuum: nothing else gathers them (a server's autovacuum may have).
    if (!concurrentSessions) expect(await columnStats()).toBe(0);
    await log.maintain!();
    expect(await columnStats()).toBeGreaterThan(0);
    const stats = await sql<{ reltuples: number }>`
      select reltuples::float8 as reltuples from pg_class
      where oid = ${`${schema}.records`}::regclass`.execute(db.db);
    expect(Number(stats.rows[0]!.reltuples)).toBe(500);
    // Only the key columns are sampled (ADR 0030): the payloads cost the most and are never
    // filtered on.
    const analysed = await sql<{ attname: string }>`
      select attname from pg_stats where schemaname = ${schema} and tablename = 'records'
      order by attname`.execute(db.db);
    expect(analysed.rows.map((r) => r.attname)).toEqual(
      Object.entries(RECORD_STATISTICS)
        .filter(([, target]) => target > 0)
        .map(([column]) => column)
        .sort(),
    );
    // ... and the idempotency look-up plans on its own index.
    const plan = await sql<{ 'QUERY PLAN': string }>`
      explain select position from ${sql.id(schema, 'records')}
      where tenant_id = ${space.tenantId} and space_id = ${space.spaceId}
        and idempotency_key = 'k-3-4'`.execute(db.db);
    expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toContain('records_idempotency_key');
  });

  it('maintain analyses the log for a space its statistics do not know, once it has 1,000 records', async () => {
    const { log, db, schema } = current;
    const tenantId = `tenant-${schemaCounter}`;
    const [old, added] = [freshSpace(tenantId), freshSpace(tenantId)];
    const appendMany = async (space: typeof old, n: number) => {
      for (let b = 0; b < n / 250; b += 1) {
        await log.append(
          space,
          Array.from({ length: 250 }, (_, i) =>
            makeRecord(space, {}, { idempotencyKey: `k-${b}-${i}` }),
          ),
        );
      }
    };
    const knownSpaces = () => statisticsValues(db.db, schema, 'records', 'space_id');
    await appendMany(old, 4000);
    await log.maintain!();
    expect(await knownSpaces()).toEqual([old.spaceId]);
    // A quarter more records, all of a new space: short of the growth that analyses again, but
    // the statistics, which knew one space, would estimate the new one at one row.
    await appendMany(added, 1000);
    await sleep(1100); // the upkeep checks once a second per schema
    await log.maintain!();
    expect([...(await knownSpaces())].sort()).toEqual([old.spaceId, added.spaceId].sort());
  });

  it.skipIf(!concurrentSessions)(
    `safe tailing: a later position stays hidden until an earlier transaction commits${onServerOnly}`,
    async () => {
      const { log, db, schema } = current;
      const [slowSpace, fastSpace] = [freshSpace(), freshSpace()];
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let inserted!: () => void;
      const insertedSignal = new Promise<void>((resolve) => (inserted = resolve));
      // Its own pooled connection: a separate session that inserted and has not committed.
      const slow = appendRecords(
        db.db,
        logTables(schema),
        slowSpace,
        numbered(slowSpace, 2),
        {},
        {
          beforeCommit: async () => {
            inserted();
            await gate;
          },
        },
      );
      await insertedSignal;

      let checkpoint = 0;
      const fast = await (async () => {
        try {
          const result = await log.append(fastSpace, numbered(fastSpace, 1, 100));
          expect(await log.readSpace(fastSpace, 0, 10)).toHaveLength(1); // committed...
          for (let i = 0; i < 5; i += 1) {
            // ...yet a tailer must not move past the open transaction's positions.
            expect(await log.readAll(checkpoint, 100)).toEqual([]);
            // The committed head already counts the later row: lag is measured against it.
            expect(await log.headPosition()).toBeGreaterThan(checkpoint);
            await sleep(20);
          }
          return result;
        } finally {
          release(); // never leave the transaction open: cleanup would wait on its locks
        }
      })();
      const committed = await slow;
      const seen = await tailUntil(log, 3, 10_000, checkpoint);
      checkpoint = seen.at(-1)?.position ?? checkpoint;
      const expected = [committed, fast].flatMap((r) => (r.status === 'appended' ? r.records : []));
      expect(seen).toEqual(expected);
      expect(isStrictlyIncreasing(seen.map((r) => r.position))).toBe(true);
      expect(await log.readAll(checkpoint, 100)).toEqual([]);
    },
  );

  it('stress: concurrent writers and a checkpointing tailer, every record seen once, versions gapless', async () => {
    const { log, db, schema } = current;
    const spaces = range(1, 4).map(() => freshSpace('tenant-stress'));
    const writers = 8;
    const appendsPerWriter = 50;
    const appended: StoredRecord[] = [];
    let writing = true;

    const tailer = (async () => {
      const seen: StoredRecord[] = [];
      let checkpoint = 0;
      let idleSince = Date.now();
      // After the writers finish, give up once nothing new shows for 10 s (a skipped row never will).
      while (writing || (seen.length < appended.length && Date.now() - idleSince < 10_000)) {
        const page = await log.readAll(checkpoint, 25);
        const last = page.at(-1);
        if (!last) {
          await sleep(writing ? 1 : 10);
          continue;
        }
        seen.push(...page);
        checkpoint = last.position;
        idleSince = Date.now();
      }
      return seen;
    })();
    await Promise.all(
      range(1, writers).map(async (w) => {
        for (let i = 0; i < appendsPerWriter; i += 1) {
          const space = spaces[(w + i) % spaces.length];
          if (!space) throw new Error('unreachable');
          const result = await log.append(space, numbered(space, 1 + ((w * i) % 3), w * 1000 + i));
          if (result.status === 'appended') appended.push(...result.records);
        }
      }),
    );
    writing = false;
    const seen = await tailer;

    expect(seen).toHaveLength(appended.length);
    expect(isStrictlyIncreasing(seen.map((r) => r.position))).toBe(true);
    const byPosition = (a: StoredRecord, b: StoredRecord) => a.position - b.position;
    expect(seen).toEqual([...appended].sort(byPosition));
    for (const space of spaces) {
      const versions = seen
        .filter((r) => r.metadata.spaceId === space.spaceId)
        .map((r) => r.spaceVersion);
      expect(versions).toEqual(range(1, versions.length));
      expect(await log.spaceVersion(space)).toBe(versions.length);
    }
    // The invariant safe tailing rests on: positions never go back in transaction-id order.
    const { rows } = await sql<{ backwards: number | string }>`
      select count(*) as backwards from (
        select transaction_id < lag(transaction_id) over (order by position) as back
        from ${logTables(schema).records}) x
      where back`.execute(db.db);
    expect(Number(rows[0]?.backwards)).toBe(0);
  });

  it('an insert failing inside the position critical section releases the lock', async () => {
    const { log } = current;
    const [a, b] = [freshSpace(), freshSpace()];
    const [taken] = numbered(a, 1);
    if (!taken) throw new Error('unreachable');
    await log.append(a, [taken]);
    const clash = {
      ...taken,
      metadata: { ...taken.metadata, spaceId: b.spaceId, tenantId: b.tenantId },
    };

    await expect(log.append(b, [clash])).rejects.toMatchObject({ code: '23505' });
    // On a server the next appends run on other pooled sessions: a leaked lock would block them.
    const next = Promise.all(range(1, 4).map(() => log.append(b, numbered(b, 1))));
    const timeout = sleep(5_000).then(() => 'blocked' as const);
    expect(await Promise.race([next.then(() => 'done' as const), timeout])).toBe('done');
    expect(await log.spaceVersion(b)).toBe(4);
  });

  it('group commit keeps each append its own outcome: one winner per expected version, in-batch duplicates', async () => {
    const { log } = current;
    const space = freshSpace('tenant-group');
    const other = freshSpace('tenant-group');
    // Fired together, these land in one or a few batches.
    const contenders = await Promise.allSettled(
      range(1, 12).map((n) => log.append(space, numbered(space, 1, n), { expectedVersion: 0 })),
    );
    const keyed = (n: number) => {
      const [r] = numbered(other, 1, n);
      r!.metadata.idempotencyKey = 'same-key';
      return [r!];
    };
    const twins = await Promise.all(range(1, 6).map((n) => log.append(other, keyed(n))));
    expect(contenders.filter((c) => c.status === 'fulfilled')).toHaveLength(1);
    const losers = contenders.filter((c) => c.status === 'rejected');
    expect(losers).toHaveLength(11);
    for (const l of losers)
      expect((l as PromiseRejectedResult).reason.code).toBe('wrong_expected_version');
    expect(twins.filter((r) => r.status === 'appended')).toHaveLength(1);
    const winner = twins.find((r) => r.status === 'appended')!;
    const winnerRecord = winner.status === 'appended' ? winner.records[0]! : null;
    for (const d of twins.filter((r) => r.status === 'duplicate')) {
      expect(d.status === 'duplicate' && d.existing.position).toBe(winnerRecord!.position);
    }
    expect(await log.spaceVersion(space)).toBe(1);
    expect(await log.spaceVersion(other)).toBe(1);
  });

  it('migration is idempotent, also when several instances start at once', async () => {
    const { log, db, schema } = current;
    const space = freshSpace();
    await log.append(space, numbered(space, 2));

    const again = await Promise.all(range(1, 3).map(() => createPostgresLog(db, { schema })));
    for (const other of again) expect(await other.spaceVersion(space)).toBe(2);
    const racing = `${schema}_race`;
    await Promise.all(range(1, 3).map(() => createPostgresLog(db, { schema: racing })));
    await dropSchema(db, racing);
  });

  it.skipIf(concurrentSessions)(
    `PGlite: readAll sees a committed append at once, no other session holds the horizon back${onPgliteOnly}`,
    async () => {
      const { log } = current;
      const space = freshSpace();
      const result = await log.append(space, numbered(space, 2));

      expect(await log.readAll(0, 10)).toEqual(result.status === 'appended' ? result.records : []);
      expect(await log.headPosition()).toBe(
        result.status === 'appended' ? result.records[1]?.position : -1,
      );
    },
  );
});
