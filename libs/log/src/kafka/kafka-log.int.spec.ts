import type { SpaceRef, StoredRecord } from '@stratagate/domain';
import { type Database } from '@stratagate/store';
import { describeBackend } from '@stratagate/store/testing';
import kafkajs, { type Kafka } from 'kafkajs';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidAppendError } from '../append-validation.ts';
import {
  freshSpace,
  makeRecord,
  numbered,
  range,
  sleep,
  sharedTestDatabase,
} from '../contract/fixtures.ts';
import { testMessageLog } from '../message-log.contract.ts';
import { WrongExpectedVersionError } from '../message-log.ts';
import { createKafkaCheckpointStore } from './kafka-checkpoints.ts';
import { consumeKafka, type KafkaBatchOutcome } from './kafka-consumer.ts';
import { kafkaIndexTables, readCoordinates, readPending } from './kafka-log.index.ts';
import {
  createKafkaLog,
  KafkaAppendOutcomeUnknownError,
  KafkaLogUnsupportedError,
  kafkaLogCapabilities,
  type KafkaLogHooks,
  type KafkaMessageLog,
} from './kafka-log.ts';
import { describeWithKafka, freshTopic, testKafka, waitFor } from './kafka.test-support.ts';

// One database per file (PGlite in memory, or a fresh database on DATABASE_URL's server), one
// index schema and one topic per case (the mock cluster cannot delete topics).
const shared = sharedTestDatabase('kafka_log');
let kafka: Kafka | undefined;
const client = () => (kafka ??= testKafka('kafka-log-spec'));
let counter = 0;

async function freshLog(
  hooks?: KafkaLogHooks,
  reuse?: { schema: string; topic: string },
): Promise<{ log: KafkaMessageLog; schema: string; topic: string; db: Database }> {
  const db = await shared();
  counter += 1;
  const schema = reuse?.schema ?? `kafka_log_case_${counter}`;
  const topic = reuse?.topic ?? freshTopic('log');
  const log = await createKafkaLog({
    kafka: client(),
    database: db,
    topic,
    schema,
    ...(hooks ? { hooks } : {}),
  });
  return { log, schema, topic, db };
}
const dropSchema = async (db: Database, schema: string) => {
  await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(db.db);
};

/** Collects what a fresh consumer group applies from `topic` until it has `count` records. */
async function consumeAll(topic: string, count: number, db: Database) {
  const checkpoints = await createKafkaCheckpointStore(db.db, { schema: `kc_${counter}` });
  const applied: StoredRecord[] = [];
  const partitions = new Map<string, number>();
  const outcomes: KafkaBatchOutcome[] = [];
  const consumer = await consumeKafka({
    kafka: client(),
    db: db.db,
    topic,
    groupId: `group-${topic}`,
    checkpoints,
    sessionTimeout: 3_000,
    maxWaitTimeInMs: 100,
    async handleBatch(_tx, records, batch) {
      applied.push(...records);
      for (const r of records) partitions.set(r.metadata.recordId, batch.partition);
    },
    onBatch: (o) => outcomes.push(o),
  });
  try {
    await waitFor(`${count} records consumed from ${topic}`, () => applied.length >= count);
    // Anything still in flight (a duplicate would show up now) gets a moment to arrive.
    await sleep(300);
  } finally {
    await consumer.stop();
  }
  return { applied, partitions, outcomes };
}

const bySpace = (records: readonly StoredRecord[], space: SpaceRef) =>
  records.filter(
    (r) => r.metadata.tenantId === space.tenantId && r.metadata.spaceId === space.spaceId,
  );

describeWithKafka(`kafka message log, index on ${describeBackend()}`, () => {
  testMessageLog(
    `kafka (kafkajs) with a Postgres index on ${describeBackend()}`,
    async () => {
      const { log, db, schema } = await freshLog();
      return { log, teardown: () => dropSchema(db, schema) };
    },
    { capabilities: kafkaLogCapabilities },
  );

  describe('kafka log specifics', () => {
    let admin: ReturnType<Kafka['admin']>;
    beforeAll(async () => {
      admin = client().admin();
      await admin.connect();
    });
    afterAll(async () => {
      await admin?.disconnect();
    });
    const messagesOn = async (topic: string) =>
      (await admin.fetchTopicOffsets(topic)).reduce((sum, p) => sum + Number(p.high), 0);

    it('puts each space on one partition, as indexed; a consumer decodes exactly what readSpace returns', async () => {
      const { log, db, schema, topic } = await freshLog();
      try {
        expect(['created', 'fallback']).toContain(log.topicInfo.how);
        expect(log.topicInfo.partitions).toBeGreaterThan(0);
        if (log.topicInfo.how === 'fallback') expect(log.topicInfo.createError).toBeTruthy();
        const spaces = range(1, 5).map(() => freshSpace());
        for (const round of range(1, 3)) {
          for (const space of spaces) await log.append(space, numbered(space, round, round * 10));
        }

        const total = spaces.length * 6;
        expect(await messagesOn(topic)).toBe(total);
        const { applied, partitions } = await consumeAll(topic, total, db);
        expect(applied).toHaveLength(total);
        for (const space of spaces) {
          const stored = await log.readSpace(space, 0, 100);
          expect(stored.map((r) => r.spaceVersion)).toEqual(range(1, 6));
          // The message value is the stored record: equal field by field, position included.
          expect(bySpace(applied, space)).toStrictEqual(stored);
          const where = await readCoordinates(db.db, kafkaIndexTables(schema), space);
          const partition = where[0]?.partition;
          expect(where.every((w) => w.partition === partition)).toBe(true);
          expect(stored.every((r) => partitions.get(r.metadata.recordId) === partition)).toBe(true);
          // One append = one record batch: its records sit at consecutive offsets.
          expect(where[2]!.offset - where[1]!.offset).toBe(1);
          expect(where[5]!.offset - where[3]!.offset).toBe(2);
        }
      } finally {
        await log.close();
        await dropSchema(db, schema);
      }
    });

    it('readAll refuses (no global order); headPosition is the highest acknowledged position', async () => {
      const { log, db, schema } = await freshLog();
      try {
        expect(await log.headPosition()).toBe(0);
        const space = freshSpace();
        const result = await log.append(space, numbered(space, 3));
        await expect(log.readAll(0, 10)).rejects.toBeInstanceOf(KafkaLogUnsupportedError);
        const last = result.status === 'appended' ? result.records.at(-1)?.position : undefined;
        expect(await log.headPosition()).toBe(last);
      } finally {
        await log.close();
        await dropSchema(db, schema);
      }
    });

    it('a produce whose index write was lost stays invisible, is completed at restart, and consumers apply it once', async () => {
      let failNext = false;
      const hooks: KafkaLogHooks = {
        async afterProduce() {
          if (!failNext) return;
          failNext = false;
          throw new Error('simulated crash between the broker ack and the index write');
        },
      };
      const first = await freshLog(hooks);
      const { db, schema, topic } = first;
      try {
        const space = freshSpace();
        await first.log.append(space, numbered(space, 1, 1));
        failNext = true;
        const lost = [
          makeRecord(space, { n: 2 }, { idempotencyKey: 'turn-2' }),
          makeRecord(space, { n: 3 }),
        ];
        await expect(first.log.append(space, lost)).rejects.toBeInstanceOf(
          KafkaAppendOutcomeUnknownError,
        );
        // On the topic, not in the index: readers of the index do not see it yet.
        expect(await messagesOn(topic)).toBe(3);
        expect(await first.log.spaceVersion(space)).toBe(1);
        expect(await first.log.readSpace(space, 0, 10)).toHaveLength(1);
        expect(await first.log.findByIdempotencyKey(space, 'turn-2')).toBeNull();
        const pending = await readPending(db.db, kafkaIndexTables(schema), space);
        expect(pending.map((r) => r.spaceVersion)).toEqual([2, 3]);
        await first.log.close();

        // A restart completes the pending append: produced again (a second copy), then indexed.
        const restarted = await freshLog(undefined, { schema, topic });
        try {
          const stored = await restarted.log.readSpace(space, 0, 10);
          expect(stored.map((r) => r.data)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
          // Same identity as decided before the crash: position and log time do not change.
          expect(stored.slice(1)).toStrictEqual(pending);
          expect(await restarted.log.reconcile()).toBe(0);
          await restarted.log.append(space, numbered(space, 1, 4));
          expect(await messagesOn(topic)).toBe(6);

          const { applied, outcomes } = await consumeAll(topic, 4, db);
          expect(applied.map((r) => r.spaceVersion)).toEqual([1, 2, 3, 4]);
          expect(applied).toStrictEqual(await restarted.log.readSpace(space, 0, 10));
          // The two copies were offered and skipped, not applied.
          expect(outcomes.reduce((n, o) => n + o.skipped, 0)).toBe(2);
        } finally {
          await restarted.log.close();
        }
      } finally {
        await first.log.close();
        await dropSchema(db, schema);
      }
    });

    it('after an unknown outcome, a retry with the same idempotency key answers duplicate', async () => {
      let failNext = true;
      const { log, db, schema, topic } = await freshLog({
        async afterProduce() {
          if (!failNext) return;
          failNext = false;
          throw new Error('simulated lost acknowledgement');
        },
      });
      try {
        const space = freshSpace();
        const attempt = () => makeRecord(space, { text: 'hello' }, { idempotencyKey: 'turn-9' });
        await expect(log.append(space, [attempt()], { expectedVersion: 0 })).rejects.toThrow(
          /outcome unknown/,
        );
        const retry = await log.append(space, [attempt()], { expectedVersion: 0 });

        expect(retry).toMatchObject({ status: 'duplicate', spaceVersion: 1 });
        expect(retry.status === 'duplicate' && retry.existing.data).toEqual({ text: 'hello' });
        expect(await log.readSpace(space, 0, 10)).toHaveLength(1);
        expect(await messagesOn(topic)).toBe(2); // the first attempt and its completion
        await expect(
          log.append(space, [makeRecord(space)], { expectedVersion: 0 }),
        ).rejects.toBeInstanceOf(WrongExpectedVersionError);
      } finally {
        await log.close();
        await dropSchema(db, schema);
      }
    });

    // librdkafka's mock cluster accepts any size, so the broker's answer is simulated here.
    it('a broker rejection of the content (simulated MESSAGE_TOO_LARGE) appends nothing and frees the versions', async () => {
      let reject = true;
      const { log, db, schema, topic } = await freshLog({
        async beforeProduce() {
          if (!reject) return;
          reject = false;
          // Shaped as kafkajs reports a broker's error code 10.
          throw new kafkajs.KafkaJSProtocolError(
            Object.assign(new Error('The request included a message larger than the max size'), {
              type: 'MESSAGE_TOO_LARGE',
              code: 10,
              retriable: false,
            }),
          );
        },
      });
      try {
        const space = freshSpace();
        const refused = log.append(space, [makeRecord(space, { big: true })]);
        await expect(refused).rejects.toBeInstanceOf(InvalidAppendError);
        await expect(refused).rejects.toThrow(/MESSAGE_TOO_LARGE/);
        expect(await readPending(db.db, kafkaIndexTables(schema), space)).toEqual([]);
        expect(await log.spaceVersion(space)).toBe(0);

        const next = await log.append(space, [makeRecord(space, { big: false })]);
        expect(next).toMatchObject({ status: 'appended', spaceVersion: 1 });
        expect(await messagesOn(topic)).toBe(1);
      } finally {
        await log.close();
        await dropSchema(db, schema);
      }
    });

    it('two log instances on one index (as two processes) serialise appends to a space', async () => {
      const one = await freshLog();
      const two = await freshLog(undefined, { schema: one.schema, topic: one.topic });
      try {
        const space = freshSpace();
        const outcomes = await Promise.allSettled(
          range(1, 10).map((i) =>
            (i % 2 ? one.log : two.log).append(space, numbered(space, 2, i * 10), {
              expectedVersion: 0,
            }),
          ),
        );
        expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
        await Promise.all(
          range(1, 10).map((i) =>
            (i % 2 ? one.log : two.log).append(space, numbered(space, 1, 100 + i)),
          ),
        );
        const stored = await two.log.readSpace(space, 0, 100);
        expect(stored.map((r) => r.spaceVersion)).toEqual(range(1, 12));
        expect(await messagesOn(one.topic)).toBe(12);
      } finally {
        await one.log.close();
        await two.log.close();
        await dropSchema(one.db, one.schema);
      }
    });

    // librdkafka's mock cluster has no CreateTopics, DescribeConfigs or idempotent producer: these
    // run where the broker has them (a real one: KAFKA_BROKERS, or the testcontainers Redpanda of
    // test/support/kafka-broker.global-setup.ts) and say why they skip elsewhere.
    describe('on a broker with CreateTopics (a real one)', () => {
      it('creates the topic with the partitions asked, retention verified, and appends with the idempotent producer', async (ctx) => {
        const db = await shared();
        counter += 1;
        const schema = `kafka_log_case_${counter}`;
        const topic = freshTopic('real');
        const probe = await createKafkaLog({
          kafka: client(),
          database: db,
          topic,
          schema,
          numPartitions: 3,
        });
        try {
          if (probe.topicInfo.how !== 'created') {
            console.warn(
              `SKIPPED: real-broker case: CreateTopics failed (${probe.topicInfo.createError ?? probe.topicInfo.how}); a mock cluster?`,
            );
            ctx.skip();
          }
          expect(probe.topicInfo.partitions).toBe(3);
          expect(probe.topicInfo.unverified).toBeUndefined();
        } finally {
          await probe.close();
        }
        const idempotent = await createKafkaLog({
          kafka: client(),
          database: db,
          topic,
          schema,
          idempotentProducer: true,
        });
        try {
          const space = freshSpace();
          const result = await idempotent.append(space, numbered(space, 3, 1), {
            expectedVersion: 0,
          });
          expect(result.status).toBe('appended');
          expect((await idempotent.readSpace(space, 0, 10)).map((r) => r.spaceVersion)).toEqual([
            1, 2, 3,
          ]);
          expect(await messagesOn(topic)).toBe(3);
        } finally {
          await idempotent.close();
          await dropSchema(db, schema);
        }
      });
    });
  });
});
