import kafkajs, { type Kafka, type KafkaConfig, type LogEntry } from 'kafkajs';

const { Kafka: KafkaClient, logLevel: LEVEL } = kafkajs;

export type KafkaLogLevel = 'nothing' | 'error' | 'warn' | 'info' | 'debug';

export interface KafkaLogLine {
  level: Exclude<KafkaLogLevel, 'nothing'>;
  namespace: string;
  message: string;
  /** kafkajs's structured fields (broker, groupId, error...). */
  fields: Record<string, unknown>;
}

const LEVELS = {
  nothing: LEVEL.NOTHING,
  error: LEVEL.ERROR,
  warn: LEVEL.WARN,
  info: LEVEL.INFO,
  debug: LEVEL.DEBUG,
} as const;

const NAMES = new Map<number, KafkaLogLine['level']>([
  [LEVEL.ERROR, 'error'],
  [LEVEL.WARN, 'warn'],
  [LEVEL.INFO, 'info'],
  [LEVEL.DEBUG, 'debug'],
]);

/** `KAFKA_BROKERS`-style list: comma-separated host:port, blanks ignored. */
export function parseKafkaBrokers(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((b) => b.trim())
    .filter((b) => b.length > 0);
}

/**
 * A kafkajs client whose log goes through one function (the process's structured logger) at a
 * chosen level, instead of kafkajs's own JSON lines on stdout. Default: warnings and errors, to
 * stderr.
 */
export function createKafkaClient(options: {
  brokers: string[];
  clientId?: string;
  logLevel?: KafkaLogLevel;
  log?: (line: KafkaLogLine) => void;
  /** Anything else kafkajs takes (ssl, sasl, timeouts, socketFactory...). */
  config?: Omit<KafkaConfig, 'brokers' | 'clientId' | 'logLevel' | 'logCreator'>;
}): Kafka {
  const sink =
    options.log ??
    ((line: KafkaLogLine) =>
      console.error(`[kafkajs ${line.level}] ${line.namespace}: ${line.message}`));
  return new KafkaClient({
    ...options.config,
    brokers: options.brokers,
    clientId: options.clientId ?? 'stratagate',
    logLevel: LEVELS[options.logLevel ?? 'warn'],
    logCreator:
      () =>
      ({ namespace, level, log }: LogEntry) => {
        const { message, timestamp: _timestamp, logger: _logger, ...fields } = log;
        sink({ level: NAMES.get(level) ?? 'debug', namespace, message, fields });
      },
  });
}
