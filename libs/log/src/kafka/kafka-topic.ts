import kafkajs, { type Admin } from 'kafkajs';

// kafkajs is CommonJS: Node's ESM loader sees only some of its exports as named ones.
const { ConfigResourceTypes } = kafkajs;

export interface KafkaTopicSpec {
  topic: string;
  /** Used only when the topic is created here. Never add partitions later (see the ADR). */
  numPartitions?: number;
  /** -1 = the broker's default.replication.factor. */
  replicationFactor?: number;
}

export interface EnsuredTopic {
  topic: string;
  partitions: number;
  /** `fallback`: CreateTopics failed and the topic was found (or auto-created) through metadata. */
  how: 'created' | 'existed' | 'fallback';
  createError?: string;
  /** Why the retention/cleanup settings could not be checked (e.g. no DescribeConfigs), if so. */
  unverified?: string;
}

/** A log topic must keep every record forever and never compact (the key is the space). */
export const LOG_TOPIC_CONFIG = [
  { name: 'cleanup.policy', value: 'delete' },
  { name: 'retention.ms', value: '-1' },
  { name: 'retention.bytes', value: '-1' },
];

export class KafkaTopicConfigError extends Error {
  readonly code = 'kafka_topic_config';
  constructor(topic: string, problem: string) {
    super(`topic "${topic}" cannot hold a message log: ${problem}`);
    this.name = 'KafkaTopicConfigError';
  }
}

/**
 * Creates the topic with log settings through CreateTopics. Brokers that refuse it (no rights,
 * or librdkafka's mock cluster, which lacks the API) get a fallback: a metadata request, which
 * finds a pre-provisioned topic or lets a broker with auto-creation create it. An existing topic's
 * cleanup policy and retention are checked where the broker answers DescribeConfigs.
 */
export async function ensureKafkaTopic(admin: Admin, spec: KafkaTopicSpec): Promise<EnsuredTopic> {
  const { topic } = spec;
  let how: EnsuredTopic['how'];
  let createError: unknown;
  try {
    const created = await admin.createTopics({
      topics: [
        {
          topic,
          numPartitions: spec.numPartitions ?? 12,
          replicationFactor: spec.replicationFactor ?? -1,
          configEntries: LOG_TOPIC_CONFIG,
        },
      ],
      waitForLeaders: true,
    });
    how = created ? 'created' : 'existed';
  } catch (error) {
    createError = error;
    how = 'fallback';
  }
  const partitions = await waitForLeaders(admin, topic, createError);
  const result: EnsuredTopic = { topic, partitions, how };
  if (createError !== undefined) result.createError = describe(createError);
  if (how !== 'created') {
    const unverified = await checkConfig(admin, topic);
    if (unverified) result.unverified = unverified;
  }
  return result;
}

async function waitForLeaders(admin: Admin, topic: string, createError: unknown): Promise<number> {
  const deadline = Date.now() + 15_000;
  let last: unknown;
  for (;;) {
    try {
      const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
      const partitions = topics.find((t) => t.name === topic)?.partitions ?? [];
      if (partitions.length > 0 && partitions.every((p) => p.leader >= 0)) return partitions.length;
      last = `${partitions.length} partitions, not all with a leader`;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      const created =
        createError === undefined ? '' : `CreateTopics failed (${describe(createError)}); `;
      throw new Error(`topic "${topic}" is not available: ${created}metadata: ${describe(last)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Throws on settings that would lose records; returns why it could not check, if it could not. */
async function checkConfig(admin: Admin, topic: string): Promise<string | undefined> {
  let entries: { configName: string; configValue: string }[];
  try {
    const { resources } = await admin.describeConfigs({
      resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }],
      includeSynonyms: false,
    });
    entries = resources[0]?.configEntries ?? [];
  } catch (error) {
    return `DescribeConfigs failed: ${describe(error)}`;
  }
  const value = (name: string) => entries.find((e) => e.configName === name)?.configValue;
  if (value('cleanup.policy')?.includes('compact')) {
    throw new KafkaTopicConfigError(topic, 'cleanup.policy includes compact');
  }
  const retention = value('retention.ms');
  if (retention !== undefined && retention !== '-1') {
    throw new KafkaTopicConfigError(topic, `retention.ms is ${retention}, not -1`);
  }
  return undefined;
}

const describe = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);
