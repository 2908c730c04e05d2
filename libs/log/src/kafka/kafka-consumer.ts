import { spaceKey, type SpaceRef, type StoredRecord } from '@stratagate/domain';
import type { AnyDb } from '@stratagate/store';
import type { ConsumerConfig, EachBatchPayload, Kafka } from 'kafkajs';
import type { KafkaCheckpointStore, PartitionRef } from './kafka-checkpoints.ts';
import { decodeRecord } from './kafka-records.ts';

export interface KafkaBatchInfo {
  topic: string;
  partition: number;
  firstOffset: number;
  lastOffset: number;
}

export interface KafkaBatchOutcome extends KafkaBatchInfo {
  /**
   * `applied`: the batch's new offsets were applied (possibly zero records, if all were copies);
   * `behind`: the checkpoint was past the whole batch already (another member applied it);
   * `gap`: the batch started after the checkpoint; nothing applied, the consumer seeks back.
   */
  outcome: 'applied' | 'behind' | 'gap';
  /** Records handed to handleBatch. */
  applied: number;
  /** Messages of the batch not handed over: offsets applied before, or second copies. */
  skipped: number;
  /** The partition's checkpoint after the transaction. */
  nextOffset: number;
}

export interface ConsumeKafkaOptions {
  kafka: Kafka;
  /** Where checkpoints live and where handleBatch's transaction is opened. */
  db: AnyDb;
  topic: string;
  groupId: string;
  checkpoints: KafkaCheckpointStore;
  /**
   * Applies records inside `tx`; the checkpoint moves in the same transaction. Receives each
   * record of a space exactly once and in version order, whatever the rebalances, restarts and
   * copies on the topic. Throwing rolls back the batch; it is fetched and offered again.
   */
  handleBatch(tx: AnyDb, records: StoredRecord[], batch: KafkaBatchInfo): Promise<void>;
  /** Default 10 s; tests on the mock cluster use 3 s. */
  sessionTimeout?: number;
  heartbeatInterval?: number;
  rebalanceTimeout?: number;
  /** How long a fetch waits for new records. Default 500 ms (also bounds how fast stop() is). */
  maxWaitTimeInMs?: number;
  /**
   * Partitions of this member applied at the same time (default 1). Each partition stays in
   * order; their transactions run side by side, so the database needs that many connections.
   */
  partitionsConsumedConcurrently?: number;
  /** Further kafkajs consumer settings (assigners, fetch sizes...). */
  consumerConfig?: Omit<ConsumerConfig, 'groupId'>;
  /** Crashes of the kafkajs consumer (it restarts itself on retriable errors) and seek failures. */
  onError?: (error: unknown) => void;
  /** After a batch is fetched and decoded, before its transaction (tracing; tests pause here). */
  beforeApply?: (batch: KafkaBatchInfo) => Promise<void> | void;
  /** After each group join, with the partitions this member now holds (logs, tests). */
  onAssignment?: (partitions: number[]) => void;
  /** After each batch's transaction committed (metrics: throughput, lag against highWatermark). */
  onBatch?: (outcome: KafkaBatchOutcome & { highWatermark: number }) => void;
}

export interface KafkaLogConsumer {
  readonly groupId: string;
  readonly topic: string;
  /** Partitions this member got at its last group join (empty before the first). */
  assignment(): number[];
  /** Leaves the group after the batch in progress; its transaction commits or rolls back first. */
  stop(): Promise<void>;
}

/** A space's next record on the topic is missing: the topic lost records (retention, misuse). */
export class KafkaSpaceGapError extends Error {
  readonly code = 'kafka_space_gap';
  constructor(space: SpaceRef, applied: number, found: number, where: string) {
    super(
      `space ${space.tenantId}/${space.spaceId}: applied up to version ${applied}, next record ` +
        `on the topic is version ${found} (${where}); records are missing`,
    );
    this.name = 'KafkaSpaceGapError';
  }
}

/** The partition no longer holds the offsets after the checkpoint (retention deleted them?). */
export class KafkaRecordsMissingError extends Error {
  readonly code = 'kafka_records_missing';
  constructor(ref: PartitionRef, checkpoint: number, first: number) {
    super(
      `${ref.topic}[${ref.partition}] for group ${ref.groupId}: checkpoint is at offset ` +
        `${checkpoint} but the partition starts at ${first}; records are missing`,
    );
    this.name = 'KafkaRecordsMissingError';
  }
}

/**
 * Consumes a Kafka message-log topic as one member of a consumer group. Offsets are never
 * committed to Kafka (autoCommit off): the truth is the Postgres checkpoint, moved in the same
 * transaction as handleBatch's writes. Per batch, in one transaction: lock the partition's
 * checkpoint row, drop offsets below it (a zombie member or a re-read after a rebalance), drop
 * records whose space version was applied already (a second copy, see the ADR), apply the rest,
 * move the checkpoint. On assignment the member seeks each partition to its checkpoint; a batch
 * that starts after the checkpoint makes it seek back, so no offset is ever passed over.
 */
export async function consumeKafka(options: ConsumeKafkaOptions): Promise<KafkaLogConsumer> {
  const { kafka, db, topic, groupId, checkpoints, handleBatch } = options;
  const report = (error: unknown) => options.onError?.(error);
  const consumer = kafka.consumer({
    ...options.consumerConfig,
    groupId,
    sessionTimeout: options.sessionTimeout ?? 10_000,
    heartbeatInterval:
      options.heartbeatInterval ?? Math.max(100, (options.sessionTimeout ?? 10_000) / 6),
    rebalanceTimeout: options.rebalanceTimeout ?? 30_000,
    maxWaitTimeInMs: options.maxWaitTimeInMs ?? 500,
  });

  // Checkpoints as this member last knew them: seeking from here at a join needs no round trip.
  // They only grow, so a stale value is at worst an offset applied already (dropped, re-sought).
  const known = await checkpoints.read(groupId, topic);
  let assigned: number[] = [];
  let running = true;
  let stopped: Promise<void> | undefined;
  const gapAt = new Map<number, number>();
  let restartTimer: NodeJS.Timeout | undefined;
  let crashes = 0;

  const seek = (partition: number, offset: number) => {
    try {
      if (running) consumer.seek({ topic, partition, offset: String(offset) });
    } catch (error) {
      report(error);
    }
  };

  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
    crashes = 0;
    assigned = [...(payload.memberAssignment[topic] ?? [])].sort((a, b) => a - b);
    try {
      options.onAssignment?.([...assigned]);
    } catch (error) {
      report(error);
    }
    for (const partition of assigned) {
      const next = known.get(partition);
      if (next !== undefined) seek(partition, next);
    }
    // Other members may have moved partitions this one now gets.
    void checkpoints.read(groupId, topic).then((stored) => {
      for (const partition of assigned) {
        const next = stored.get(partition);
        if (next !== undefined && next > (known.get(partition) ?? 0)) {
          known.set(partition, next);
          seek(partition, next);
        }
      }
    }, report);
  });
  // kafkajs restarts itself after retriable crashes only; a non-retriable one (e.g. a broker's
  // INVALID_REQUEST during a rebalance) would stop this member for good, silently but for onError.
  // A log consumer keeps going until stopped: restart with a backoff.
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    report(payload.error);
    if (payload.restart || !running) return;
    const delay = Math.min(30_000, 500 * 2 ** crashes);
    crashes += 1;
    restartTimer = setTimeout(() => {
      restartTimer = undefined;
      if (running) consumer.run(runConfig).catch(report);
    }, delay);
  });

  async function eachBatch({
    batch,
    resolveOffset,
    heartbeat,
    isRunning,
    isStale,
  }: EachBatchPayload): Promise<void> {
    const { partition, messages } = batch;
    const first = messages[0];
    const last = messages[messages.length - 1];
    if (!isRunning() || isStale() || !first || !last) return;
    const info: KafkaBatchInfo = {
      topic,
      partition,
      firstOffset: Number(first.offset),
      lastOffset: Number(last.offset),
    };
    const decoded = messages.map((m) => ({
      offset: Number(m.offset),
      record: decodeRecord(topic, partition, m),
    }));
    await options.beforeApply?.(info);

    const ref: PartitionRef = { groupId, topic, partition };
    const outcome = await db.transaction().execute(async (tx) => {
      const next = await checkpoints.claim(tx, ref);
      const result = (o: KafkaBatchOutcome['outcome'], applied: number, nextOffset: number) => ({
        outcome: o,
        applied,
        skipped: decoded.length - applied,
        nextOffset,
      });
      if (info.firstOffset > next) return result('gap', 0, next);
      const fresh = decoded.filter((d) => d.offset >= next);
      if (fresh.length === 0) return result('behind', 0, next);

      const spaces = new Map<string, SpaceRef>();
      for (const { record: r } of fresh) {
        spaces.set(spaceKey(r.metadata), {
          tenantId: r.metadata.tenantId,
          spaceId: r.metadata.spaceId,
        });
      }
      const versions = await checkpoints.spaceVersions(tx, groupId, topic, [...spaces.values()]);
      const moved = new Map<string, { space: SpaceRef; version: number }>();
      const records: StoredRecord[] = [];
      for (const { record, offset } of fresh) {
        const key = spaceKey(record.metadata);
        const applied = versions.get(key) ?? 0;
        if (record.spaceVersion <= applied) continue;
        if (record.spaceVersion !== applied + 1) {
          throw new KafkaSpaceGapError(
            spaces.get(key)!,
            applied,
            record.spaceVersion,
            `${topic}[${partition}]@${offset}`,
          );
        }
        versions.set(key, record.spaceVersion);
        moved.set(key, { space: spaces.get(key)!, version: record.spaceVersion });
        records.push(record);
      }
      if (records.length > 0) await handleBatch(tx, records, info);
      await checkpoints.storeSpaceVersions(tx, groupId, topic, [...moved.values()]);
      await checkpoints.advance(tx, ref, info.lastOffset + 1);
      return result('applied', records.length, info.lastOffset + 1);
    });

    options.onBatch?.({ ...info, ...outcome, highWatermark: Number(batch.highWatermark) });
    if (outcome.nextOffset === info.lastOffset + 1) {
      known.set(partition, outcome.nextOffset);
      gapAt.delete(partition);
      resolveOffset(last.offset);
    } else if (outcome.outcome === 'behind') {
      known.set(partition, outcome.nextOffset);
      seek(partition, outcome.nextOffset);
    } else {
      // Once may be a seek that lost a race with the first fetch; twice at the same spot is real.
      if (gapAt.get(partition) === outcome.nextOffset) {
        throw new KafkaRecordsMissingError(ref, outcome.nextOffset, info.firstOffset);
      }
      gapAt.set(partition, outcome.nextOffset);
      seek(partition, outcome.nextOffset);
    }
    await heartbeat();
  }

  const runConfig = {
    autoCommit: false,
    eachBatchAutoResolve: false,
    partitionsConsumedConcurrently: options.partitionsConsumedConcurrently ?? 1,
    eachBatch,
  };
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run(runConfig);
  } catch (error) {
    await consumer.disconnect();
    throw error;
  }

  return {
    groupId,
    topic,
    assignment: () => [...assigned],
    stop() {
      running = false;
      clearTimeout(restartTimer);
      stopped ??= consumer.disconnect().finally(() => {
        assigned = [];
      });
      return stopped;
    },
  };
}
