import type { Logger } from 'pino';
import {
  createKafkaCheckpointStore,
  createKafkaClient,
  createKafkaLog,
  createPostgresLog,
  createSealedLog,
  DataKeyStore,
  openRecords,
  parseKafkaBrokers,
  type MessageLog,
} from '@stratagate/log';
import type { KafkaSource } from '@stratagate/projector';
import type { Config } from './config.ts';
import type { Stores } from './stores.ts';

export type KafkaBackend = KafkaSource;

export interface OpenedLog {
  /** Seals what it appends and opens what it reads (ADR 0046). */
  log: MessageLog;
  /** The data keys that seal the log's records, beside the log. */
  keys: DataKeyStore;
  /** Set on the Kafka backend: what the projector consumes and where its offsets live. */
  kafka: KafkaBackend | null;
}

/**
 * The message log the configuration names: the Postgres table in the log's database (default) or
 * a Kafka topic whose index and consumer checkpoints live in the read models' database (ADR
 * 0007): the projector commits its offsets with its writes. Either way its records are sealed
 * with data keys kept beside it (ADR 0046).
 */
export async function openMessageLog(
  config: Config,
  { database, logDatabase }: Pick<Stores, 'database' | 'logDatabase'>,
  logger: Logger | false,
  clientId = 'stratagate',
): Promise<OpenedLog> {
  if (config.STRATAGATE_LOG_BACKEND === 'postgres') {
    const keys = new DataKeyStore(logDatabase.db);
    await keys.migrate();
    return { log: createSealedLog(await createPostgresLog(logDatabase), keys), keys, kafka: null };
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
  // Beside the topic's index, where the projector's transactions are: it opens records in them.
  const keys = new DataKeyStore(database.db);
  await keys.migrate();
  return {
    log: createSealedLog(log, keys),
    keys,
    kafka: { kafka, topic, checkpoints, open: (records, db) => openRecords(records, keys, db) },
  };
}
