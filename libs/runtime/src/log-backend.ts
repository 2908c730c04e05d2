import type { Logger } from 'pino';
import {
  createKafkaCheckpointStore,
  createKafkaClient,
  createKafkaLog,
  createPostgresLog,
  parseKafkaBrokers,
  type MessageLog,
} from '@stratagate/log';
import type { KafkaSource } from '@stratagate/projector';
import type { Database } from '@stratagate/store';
import type { Config } from './config.ts';

export type KafkaBackend = KafkaSource;

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
