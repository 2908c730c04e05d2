import type { Logger } from 'pino';
import {
  createKafkaCheckpointStore,
  createKafkaClient,
  createKafkaLog,
  createPostgresLog,
  parseKafkaBrokers,
  type KafkaCheckpointStore,
  type MessageLog,
} from '@stratagate/log';
import type { Database } from '@stratagate/store';
import type { Kafka } from 'kafkajs';
import type { Config } from './config.ts';

export interface KafkaBackend {
  kafka: Kafka;
  topic: string;
  checkpoints: KafkaCheckpointStore;
}

export interface OpenedLog {
  log: MessageLog;
  /** Set on the Kafka backend: what the projector consumes and where its offsets live. */
  kafka: KafkaBackend | null;
}

/**
 * The message log the configuration names: the Postgres table in the database (default) or a
 * Kafka topic whose index and consumer checkpoints live in the same database (ADR 0007).
 */
export async function openMessageLog(
  config: Config,
  database: Database,
  logger: Logger | false,
  clientId = 'stratagate',
): Promise<OpenedLog> {
  if (config.STRATAGATE_LOG_BACKEND === 'postgres') {
    return { log: await createPostgresLog(database), kafka: null };
  }
  const kafkaLogger = logger === false ? null : logger.child({ component: 'kafkajs' });
  const kafka = createKafkaClient({
    brokers: parseKafkaBrokers(config.KAFKA_BROKERS),
    clientId,
    logLevel: kafkaLogger ? 'warn' : 'nothing',
    ...(kafkaLogger
      ? {
          log: (line) =>
            kafkaLogger[line.level]({ ...line.fields, namespace: line.namespace }, line.message),
        }
      : {}),
  });
  const topic = config.STRATAGATE_KAFKA_TOPIC;
  const log = await createKafkaLog({
    kafka,
    database,
    topic,
    numPartitions: config.STRATAGATE_KAFKA_PARTITIONS,
  });
  const checkpoints = await createKafkaCheckpointStore(database.db);
  return { log, kafka: { kafka, topic, checkpoints } };
}

export interface PartitionLag {
  partition: number;
  /** Next offset the group will apply (its checkpoint in Postgres). */
  next: number;
  /** The partition's high watermark: the offset after its last message. */
  end: number;
  lag: number;
}

/** Per partition of the topic: where a consumer group's checkpoint is and how far behind. */
export async function kafkaGroupLag(
  backend: KafkaBackend,
  groupId: string,
): Promise<PartitionLag[]> {
  const admin = backend.kafka.admin();
  await admin.connect();
  try {
    const ends = await admin.fetchTopicOffsets(backend.topic);
    const next = await backend.checkpoints.read(groupId, backend.topic);
    return ends
      .map((e) => {
        const end = Number(e.high);
        const at = next.get(e.partition) ?? Number(e.low);
        return { partition: e.partition, next: at, end, lag: Math.max(0, end - at) };
      })
      .sort((a, b) => a.partition - b.partition);
  } finally {
    await admin.disconnect();
  }
}
