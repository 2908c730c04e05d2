import { describeBackend } from '@stratagate/store/testing';
import type { Kafka } from 'kafkajs';
import { sql } from 'kysely';
import { sharedTestDatabase } from '../contract/fixtures.ts';
import { testMessageSource } from '../message-source.contract.ts';
import { createKafkaCheckpointStore } from './kafka-checkpoints.ts';
import { createKafkaLog } from './kafka-log.ts';
import { createKafkaSource } from './kafka-source.ts';
import { describeWithKafka, freshTopic, testKafka } from './kafka.test-support.ts';

const shared = sharedTestDatabase('kafka_source');
let kafka: Kafka | undefined;
const client = () => (kafka ??= testKafka('kafka-source-spec'));
let counter = 0;

describeWithKafka('kafka source', () => {
  testMessageSource(`kafka (kafkajs) group member on ${describeBackend()}`, async () => {
    const db = await shared();
    counter += 1;
    const schema = `kafka_source_case_${counter}`;
    const topic = freshTopic('source');
    const log = await createKafkaLog({ kafka: client(), database: db, topic, schema });
    const checkpoints = await createKafkaCheckpointStore(db.db, { schema: `${schema}_cp` });
    return {
      log,
      db: db.db,
      async source(consumer) {
        const source = await createKafkaSource({
          kafka: client(),
          db: db.db,
          topic,
          groupId: `${topic}-${consumer}`,
          checkpoints,
          sessionTimeout: 3_000,
          heartbeatInterval: 500,
          rebalanceTimeout: 10_000,
          maxWaitTimeInMs: 100,
        });
        await source.join();
        return source;
      },
      async teardown() {
        for (const s of [schema, `${schema}_cp`]) {
          await sql`drop schema if exists ${sql.id(s)} cascade`.execute(db.db);
        }
      },
    };
  });
});
