import { decodeRecord, type DecodedRecord, type StoredRecord } from '@stratagate/domain';
import {
  consumeKafka,
  type KafkaBatchOutcome,
  type KafkaCheckpointStore,
  type KafkaLogConsumer,
} from '@stratagate/log';
import type { AnyDb } from '@stratagate/store';
import { recordConsumerLag, traceRecordBatch } from '@stratagate/telemetry';
import type { Kafka } from 'kafkajs';
import { deferredLane } from './deferred-lane.ts';
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
 * The projector on a Kafka log: one member of the consumer group of the live read-model schema.
 * Each batch of a partition is applied by the projection in the transaction that moves the
 * partition's checkpoint and the spaces' applied versions (consumeKafka: no record applied twice
 * or skipped, per space in order); readers wait for their own writes against those versions.
 * A rebuild's switch (ADR 0009) is followed: the batch in flight rolls back, this member leaves
 * the old group and joins the new schema's group, which resumes from that schema's checkpoints.
 */
export function createKafkaProjector(options: KafkaProjectorOptions): KafkaProjector {
  const { db, kafka, topic, checkpoints, target } = options;
  const prefix = options.groupPrefix ?? DEFAULT_GROUP_PREFIX;
  const report = (error: unknown) => options.onError?.(error);
  let consumer: KafkaLogConsumer | null = null;
  let active: ResolvedTarget | null = null;
  let migrated: string | null = null;
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let switching: Promise<void> | null = null;
  const lane = deferredLane({
    db,
    work: () => active?.projection.deferred,
    onError: report,
    afterDrain: async (schema) => {
      if (active?.schema === schema) await active.projection.afterCommit?.(db, schema);
    },
  });

  async function join(t: ResolvedTarget): Promise<void> {
    if (migrated !== t.schema) {
      await t.projection.migrate(db, t.schema);
      migrated = t.schema;
    }
    const groupId = kafkaProjectionGroup(prefix, options.topic, t.projection.name, t.schema);
    active = t;
    // Work queued before this member joined (another member's, or before a switch) drains now.
    lane.kick(t.schema);
    consumer = await consumeKafka({
      kafka,
      db,
      topic,
      groupId,
      checkpoints,
      ...(options.sessionTimeout ? { sessionTimeout: options.sessionTimeout } : {}),
      onError: report,
      partitionsConsumedConcurrently: options.concurrency ?? 4,
      onAssignment: (partitions) => options.onAssignment?.({ groupId, partitions }),
      handleBatch: (tx, stored, batch) =>
        traceRecordBatch(
          t.projection.name,
          stored,
          async () => {
            await target.confirm(tx, t);
            const records: DecodedRecord[] = [];
            for (const s of options.open ? await options.open(stored, tx) : stored) {
              const decoded = decodeRecord(s);
              // Unknown types come from a newer writer; skipping keeps older projectors running.
              if (decoded) records.push(decoded);
            }
            await t.projection.handle(tx, t.schema, records);
          },
          { 'stratagate.schema': t.schema, 'stratagate.partition': String(batch.partition) },
        ),
      onBatch: (outcome) => {
        // After the batch committed; throttled per schema, so concurrent partitions share it.
        lane.kick(t.schema);
        void t.projection.afterCommit?.(db, t.schema).catch(report);
        recordConsumerLag(
          t.projection.name,
          outcome.partition,
          outcome.highWatermark - outcome.nextOffset,
        );
        options.onBatch?.({ ...outcome, schema: t.schema, groupId });
      },
    });
  }

  /** Leaves the old schema's group and joins the live one's when a rebuild switched reads. */
  async function follow(): Promise<void> {
    const next = await target.current(db);
    if (!running || next.schema === active?.schema) return;
    const previous = consumer;
    consumer = null;
    await previous?.stop();
    if (running) await join(next);
  }

  function schedule() {
    timer = setTimeout(() => {
      switching = follow()
        .catch(report)
        .finally(() => {
          switching = null;
          if (running) schedule();
        });
    }, options.targetCheckMs ?? 1000);
  }

  return {
    async start() {
      if (running) return;
      running = true;
      await join(await target.current(db));
      schedule();
    },
    async stop() {
      running = false;
      clearTimeout(timer);
      await switching;
      const current = consumer;
      consumer = null;
      await current?.stop();
      await lane.stop();
    },
    groupId: () =>
      active
        ? kafkaProjectionGroup(prefix, options.topic, active.projection.name, active.schema)
        : null,
    assignment: () => consumer?.assignment() ?? [],
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
