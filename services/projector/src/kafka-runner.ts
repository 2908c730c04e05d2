import type { StoredRecord } from '@stratagate/domain';
import {
  createKafkaSource,
  type KafkaBatchOutcome,
  type KafkaCheckpointStore,
  type KafkaMessageSource,
} from '@stratagate/log';
import type { AnyDb } from '@stratagate/store';
import type { Kafka } from 'kafkajs';
import { createRunner } from './runner.ts';
import { type ProjectionTarget, type ResolvedTarget } from './versions.ts';

/** The topic a projector consumes and where its consumer checkpoints live. */
export interface KafkaSource {
  kafka: Kafka;
  topic: string;
  checkpoints: KafkaCheckpointStore;
  /** Consumer group prefix; the group is `<prefix>.<topic>.<projection>.<schema>`. */
  groupPrefix?: string;
  /**
   * Opens sealed records as the topic holds them (ADR 0046), inside the batch's transaction
   * (`db`): the data keys sit in the same database. Without it records are applied as read.
   */
  open?: (records: StoredRecord[], db: AnyDb) => Promise<StoredRecord[]>;
}

export const DEFAULT_GROUP_PREFIX = 'stratagate.projector';

export interface KafkaProjectorOptions extends KafkaSource {
  db: AnyDb;
  target: ProjectionTarget;
  sessionTimeout?: number;
  /** Partitions applied side by side by this member (default 4; PGlite serialises them). */
  concurrency?: number;
  /** How often the live target is re-resolved to follow a rebuild's switch (default 1 s). */
  targetCheckMs?: number;
  /** Records per batch at most (default 500; a fetched batch is applied in chunks of this). */
  batchSize?: number;
  onError?: (error: unknown) => void;
  /** After each group join: the group and the partitions this member holds. */
  onAssignment?: (assignment: { groupId: string; partitions: number[] }) => void;
  onBatch?: (
    batch: KafkaBatchOutcome & { highWatermark: number; schema: string; groupId: string },
  ) => void;
}

export interface KafkaProjector {
  /** Joins the consumer group of the current target (resolves once joined and subscribed). */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The group of the schema being projected (null before start). */
  groupId(): string | null;
  /** Partitions this member holds. */
  assignment(): number[];
  /** Applies what the group holds until every partition is at its end and deferred work is done. */
  catchUp(): Promise<number>;
}

/** The consumer group that projects `schema`: one group per read-model version. */
export function kafkaProjectionGroup(
  prefix: string,
  topic: string,
  projection: string,
  schema: string,
): string {
  // The topic is part of the name: KafkaJS's assigners expect every member of a group to
  // subscribe to the same topics, so two deployments on one cluster (other topics, same schema
  // name) must never share a group.
  return `${prefix}.${topic}.${projection}.${schema}`;
}

/**
 * The Kafka source of the consumer group that projects `t` (not joined yet: `join()` does).
 * One group per read-model schema, so a version resumes from its own checkpoints.
 */
export function kafkaSourceOf(
  db: AnyDb,
  source: KafkaSource,
  t: ResolvedTarget,
  options: Omit<KafkaProjectorOptions, keyof KafkaSource | 'db' | 'target'> = {},
): Promise<KafkaMessageSource> {
  const prefix = source.groupPrefix ?? DEFAULT_GROUP_PREFIX;
  const groupId = kafkaProjectionGroup(prefix, source.topic, t.projection.name, t.schema);
  return createKafkaSource({
    kafka: source.kafka,
    db,
    topic: source.topic,
    groupId,
    checkpoints: source.checkpoints,
    ...(source.open ? { open: source.open } : {}),
    ...(options.sessionTimeout ? { sessionTimeout: options.sessionTimeout } : {}),
    ...(options.onError ? { onError: options.onError } : {}),
    partitionsConsumedConcurrently: options.concurrency ?? 4,
    onAssignment: (partitions) => options.onAssignment?.({ groupId, partitions }),
    ...(options.onBatch
      ? {
          onBatch: (outcome: KafkaBatchOutcome & { highWatermark: number }) =>
            options.onBatch?.({ ...outcome, schema: t.schema, groupId }),
        }
      : {}),
  });
}

/**
 * The projector on a Kafka log: the one runner (ADR 0049) over the Kafka source, a member of the
 * consumer group of the live read-model schema. Each batch of a partition is applied by the
 * projection in the transaction that moves the partition's checkpoint and the spaces' applied
 * versions (no record applied twice or skipped, per space in order); readers wait for their own
 * writes against those versions. A rebuild's switch (ADR 0009) is followed: the batch in flight
 * rolls back, the runner closes the old schema's source (leaves its group) and opens the new
 * one's, which resumes from that schema's checkpoints.
 */
export function createKafkaProjector(options: KafkaProjectorOptions): KafkaProjector {
  const concurrency = options.concurrency ?? 4;
  const runner = createRunner({
    db: options.db,
    target: options.target,
    concurrency,
    ...(options.batchSize ? { batchSize: options.batchSize } : {}),
    // An idle member re-resolves the target this often: how a switch is followed when idle.
    idleMs: options.targetCheckMs ?? 1000,
    ...(options.onError ? { onError: options.onError } : {}),
    async source(t) {
      const source = await kafkaSourceOf(options.db, options, t, { ...options, concurrency });
      await source.join();
      return source;
    },
  });
  const current = () => runner.source() as KafkaMessageSource | null;
  return {
    async start() {
      await runner.open();
      runner.start();
    },
    stop: () => runner.stop(),
    catchUp: () => runner.catchUp(),
    groupId: () => current()?.groupId ?? null,
    assignment: () => current()?.assignment() ?? [],
  };
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
export async function kafkaGroupLag(source: KafkaSource, groupId: string): Promise<PartitionLag[]> {
  const admin = source.kafka.admin();
  await admin.connect();
  try {
    const ends = await admin.fetchTopicOffsets(source.topic);
    const next = await source.checkpoints.read(groupId, source.topic);
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
