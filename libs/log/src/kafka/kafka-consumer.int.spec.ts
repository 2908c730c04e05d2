import type { SpaceRef, StoredRecord } from '@stratagate/domain';
import { type AnyDb } from '@stratagate/store';
import { describeBackend } from '@stratagate/store/testing';
import type { Kafka } from 'kafkajs';
import { sql } from 'kysely';
import { beforeAll, expect, it } from 'vitest';
import { freshSpace, numbered, range, sleep, sharedTestDatabase } from '../contract/fixtures.ts';
import { createKafkaCheckpointStore } from './kafka-checkpoints.ts';
import {
  consumeKafka,
  type KafkaBatchInfo,
  type KafkaBatchOutcome,
  type KafkaLogConsumer,
} from './kafka-consumer.ts';
import { createKafkaLog, type KafkaMessageLog } from './kafka-log.ts';
import {
  describeWithKafka,
  freshTopic,
  severableNetwork,
  testKafka,
  waitFor,
} from './kafka.test-support.ts';

const shared = sharedTestDatabase('kafka_consumer');
let kafka: Kafka | undefined;
const client = () => (kafka ??= testKafka('kafka-consumer-spec'));
let counter = 0;

interface AppliedRow {
  seq: number;
  consumer: string;
  partition: number;
  tenant_id: string;
  space_id: string;
  space_version: number;
  record_id: string;
}

/**
 * A log, a checkpoint store and a projection table for one case. The table has no unique
 * constraint on purpose: a record applied twice must show up as two rows, not as an error.
 */
async function fixture() {
  const db = await shared();
  counter += 1;
  const schema = `kafka_consumer_case_${counter}`;
  const topic = freshTopic('consumer');
  const log = await createKafkaLog({
    kafka: client(),
    database: db,
    topic,
    schema: `${schema}_log`,
  });
  const checkpoints = await createKafkaCheckpointStore(db.db, { schema: `${schema}_cp` });
  await sql`create schema ${sql.id(schema)}`.execute(db.db);
  const applied = sql.table(`${schema}.applied`);
  await sql`
    create table ${applied} (
      seq bigserial primary key, consumer text not null, partition integer not null,
      tenant_id text not null, space_id text not null, space_version bigint not null,
      record_id text not null)`.execute(db.db);
  const groupId = `group-${topic}`;
  const admin = client().admin();
  await admin.connect();

  const outcomes: (KafkaBatchOutcome & { consumer: string })[] = [];
  const errors: string[] = [];
  const member = (
    name: string,
    options: { kafka?: Kafka; beforeApply?: (b: KafkaBatchInfo) => Promise<void> } = {},
  ): Promise<KafkaLogConsumer> =>
    consumeKafka({
      kafka: options.kafka ?? client(),
      db: db.db,
      topic,
      groupId,
      checkpoints,
      sessionTimeout: 3_000,
      heartbeatInterval: 500,
      rebalanceTimeout: 10_000,
      maxWaitTimeInMs: 100,
      async handleBatch(tx: AnyDb, records: StoredRecord[], batch: KafkaBatchInfo) {
        const values = records.map(
          (r) =>
            sql`(${name}, ${batch.partition}, ${r.metadata.tenantId}, ${r.metadata.spaceId},
              ${r.spaceVersion}, ${r.metadata.recordId})`,
        );
        await sql`insert into ${applied} (consumer, partition, tenant_id, space_id, space_version,
          record_id) values ${sql.join(values)}`.execute(tx);
      },
      ...(options.beforeApply ? { beforeApply: options.beforeApply } : {}),
      onBatch: (o) => outcomes.push({ ...o, consumer: name }),
      onError: (e) => errors.push(`${name}: ${e instanceof Error ? e.message : String(e)}`),
    });

  const rows = async () =>
    (await sql<AppliedRow>`select * from ${applied} order by seq`.execute(db.db)).rows.map((r) => ({
      ...r,
      seq: Number(r.seq),
      space_version: Number(r.space_version),
    }));
  const appliedBy = async (name: string) =>
    Number(
      (
        await sql<{
          n: number | string;
        }>`select count(*) as n from ${applied} where consumer = ${name}`.execute(db.db)
      ).rows[0]?.n,
    );
  const highWatermarks = async () =>
    new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, Number(p.high)]));
  /** Every partition's checkpoint has reached the end of the partition. */
  const caughtUp = async () => {
    const [highs, stored] = await Promise.all([highWatermarks(), checkpoints.read(groupId, topic)]);
    return [...highs].every(([p, high]) => high === 0 || stored.get(p) === high);
  };
  const teardown = async () => {
    await admin.disconnect();
    await log.close();
    for (const s of [schema, `${schema}_log`, `${schema}_cp`]) {
      await sql`drop schema if exists ${sql.id(s)} cascade`.execute(db.db);
    }
  };
  return {
    db,
    log,
    topic,
    groupId,
    checkpoints,
    member,
    rows,
    appliedBy,
    highWatermarks,
    caughtUp,
    outcomes,
    errors,
    teardown,
  };
}

/** Appends to `spaces` from a few concurrent loops until stopped; keeps what was appended. */
function startWriter(log: KafkaMessageLog, spaces: readonly SpaceRef[], loops = 4) {
  const appended: StoredRecord[] = [];
  let writing = true;
  const workers = range(0, loops - 1).map(async (w) => {
    for (let i = 0; writing; i += 1) {
      const space = spaces[(w + i * loops) % spaces.length]!;
      const result = await log.append(space, numbered(space, 1 + ((w + i) % 3), i));
      if (result.status === 'appended') appended.push(...result.records);
      await sleep(5);
    }
  });
  return {
    appended,
    async finish() {
      writing = false;
      await Promise.all(workers);
      return appended;
    },
  };
}

/** Exactly once, in order: the rows are the appended records, each once, versions 1..n per space. */
function expectExactlyOnce(rows: readonly AppliedRow[], appended: readonly StoredRecord[]) {
  const ids = rows.map((r) => r.record_id);
  expect(new Set(ids).size).toBe(ids.length);
  expect([...ids].sort()).toEqual(appended.map((r) => r.metadata.recordId).sort());
  const versions = new Map<string, number[]>();
  for (const r of rows) {
    const key = `${r.tenant_id}/${r.space_id}`;
    versions.set(key, [...(versions.get(key) ?? []), r.space_version]);
  }
  for (const [, applied] of versions) expect(applied).toEqual(range(1, applied.length));
}

describeWithKafka(`kafka consumer groups, checkpoints on ${describeBackend()}`, () => {
  let f: Awaited<ReturnType<typeof fixture>>;
  beforeAll(async () => {
    // Opens the database and the client before the first case's clock starts.
    await shared();
  });

  it('a member restarted in the same group resumes at its Postgres checkpoint', async () => {
    f = await fixture();
    const spaces = range(1, 4).map(() => freshSpace());
    try {
      for (const space of spaces) await f.log.append(space, numbered(space, 10));
      const first = await f.member('first');
      await waitFor(
        'the first member to apply 40 records',
        async () => (await f.rows()).length >= 40,
      );
      await first.stop();

      for (const space of spaces) await f.log.append(space, numbered(space, 5, 11));
      const second = await f.member('second');
      await waitFor('the second member to catch up', f.caughtUp);
      await second.stop();

      const rows = await f.rows();
      const ofFirst = rows.filter((r) => r.consumer === 'first');
      const ofSecond = rows.filter((r) => r.consumer === 'second');
      expect(ofFirst).toHaveLength(40);
      expect(ofFirst.every((r) => r.space_version <= 10)).toBe(true);
      expect(ofSecond).toHaveLength(20);
      expect(ofSecond.every((r) => r.space_version > 10)).toBe(true);
      const appended = (
        await Promise.all(spaces.map((space) => f.log.readSpace(space, 0, 100)))
      ).flat();
      expectExactlyOnce(rows, appended);
    } finally {
      await f.teardown();
    }
  });

  it('survives a frozen member, a new member and a graceful leave mid-stream: no record lost or applied twice', async () => {
    f = await fixture();
    const spaces = range(1, 12).map(() => freshSpace());
    const partitions = f.log.topicInfo.partitions;
    const network = severableNetwork();
    // Member A can be frozen inside its batch loop (fetched a batch, transaction not begun).
    let freeze: ((batch: KafkaBatchInfo) => void) | undefined;
    let thaw!: () => void;
    const thawed = new Promise<void>((resolve) => (thaw = resolve));
    const frozenAt = new Promise<KafkaBatchInfo>((resolve) => (freeze = resolve));
    let armed = false;
    const consumers: KafkaLogConsumer[] = [];
    const writer = startWriter(f.log, spaces);
    try {
      const a = await f.member('A', {
        kafka: testKafka('member-a', { socketFactory: network.socketFactory }),
        async beforeApply(batch) {
          if (!armed || !freeze) return;
          const signal = freeze;
          freeze = undefined;
          signal(batch);
          await thawed;
        },
      });
      consumers.push(a);
      const b = await f.member('B');
      consumers.push(b);
      await waitFor(
        'A and B to share the partitions and both apply',
        async () =>
          a.assignment().length > 0 &&
          b.assignment().length > 0 &&
          (await f.appliedBy('A')) > 0 &&
          (await f.appliedBy('B')) > 0,
      );
      const partitionsOfA = a.assignment();

      // A freezes holding a batch and drops off the network: no heartbeat, no LeaveGroup.
      armed = true;
      const held = await frozenAt;
      network.sever();
      await waitFor('B to take over every partition', () => b.assignment().length === partitions);
      await waitFor(
        "B to apply past A's held batch",
        async () =>
          ((await f.checkpoints.read(f.groupId, f.topic)).get(held.partition) ?? 0) >
          held.lastOffset,
      );
      const takenOver = (await f.rows()).filter(
        (r) => r.consumer === 'B' && partitionsOfA.includes(r.partition),
      );
      expect(takenOver.length).toBeGreaterThan(0);

      // A thaws: its stale batch meets the checkpoint B moved and applies nothing. Then it stops.
      network.heal();
      thaw();
      const isHeld = (o: KafkaBatchOutcome & { consumer: string }) =>
        o.consumer === 'A' && o.partition === held.partition && o.firstOffset === held.firstOffset;
      await waitFor("A's held batch to settle", () => f.outcomes.some(isHeld));
      expect(f.outcomes.find(isHeld)).toMatchObject({ outcome: 'behind', applied: 0 });
      await a.stop();

      // A new member joins, then B leaves gracefully while the writer keeps going.
      const c = await f.member('C');
      consumers.push(c);
      await waitFor('C to apply', async () => (await f.appliedBy('C')) > 0);
      await b.stop();
      await waitFor('C to own every partition', () => c.assignment().length === partitions);

      const appended = await writer.finish();
      await waitFor('C to apply everything', f.caughtUp, 60_000);
      await c.stop();

      const rows = await f.rows();
      expect(rows).toHaveLength(appended.length);
      expectExactlyOnce(rows, appended);
      // The Postgres checkpoints are exactly at the end of every partition.
      const highs = await f.highWatermarks();
      const stored = await f.checkpoints.read(f.groupId, f.topic);
      for (const [partition, high] of highs) expect(stored.get(partition) ?? 0).toBe(high);
      expect(new Set(rows.map((r) => r.consumer))).toEqual(new Set(['A', 'B', 'C']));
    } finally {
      thaw();
      network.heal();
      await writer.finish();
      for (const c of consumers) await c.stop();
      if (f.errors.length > 0)
        console.info(`consumer errors during the case:\n${f.errors.join('\n')}`);
      await f.teardown();
    }
  });
});
