export * from './kafka-checkpoints.ts';
export * from './kafka-client.ts';
export * from './kafka-consumer.ts';
export {
  createKafkaLog,
  contentRejection,
  kafkaLogCapabilities,
  KafkaAppendOutcomeUnknownError,
  KafkaLogUnsupportedError,
  type KafkaLogHooks,
  type KafkaLogOptions,
  type KafkaMessageLog,
} from './kafka-log.ts';
export {
  HEADERS as KAFKA_HEADERS,
  KafkaRecordFormatError,
  decodeRecord as decodeKafkaRecord,
} from './kafka-records.ts';
export * from './kafka-topic.ts';
export {
  createKafkaSource,
  type KafkaCheckpoint,
  type KafkaMessageSource,
  type KafkaSourceBatch,
  type KafkaSourceOptions,
} from './kafka-source.ts';
