import type { StoredRecord } from '@stratagate/domain';
import type { AnyDb } from '@stratagate/store';
import { createKafkaSource, type KafkaBatchInfo, type KafkaSourceOptions } from './kafka-source.ts';

export {
  KafkaRecordsMissingError,
  KafkaSpaceGapError,
  type KafkaBatchInfo,
  type KafkaBatchOutcome,
} from './kafka-source.ts';

export interface ConsumeKafkaOptions extends Omit<KafkaSourceOptions, 'open'> {
  /** Where checkpoints live and where handleBatch's transaction is opened. */
  db: AnyDb;
  /**
   * Applies records inside `tx`; the checkpoint moves in the same transaction. Receives each
   * record of a space exactly once and in version order, whatever the rebalances, restarts and
   * copies on the topic. Throwing rolls back the batch; it is fetched and offered again.
   */
  handleBatch(tx: AnyDb, records: StoredRecord[], batch: KafkaBatchInfo): Promise<void>;
}

export interface KafkaLogConsumer {
  readonly groupId: string;
  readonly topic: string;
  /** Partitions this member got at its last group join (empty before the first). */
  assignment(): number[];
  /** Leaves the group after the batch in progress; its transaction commits or rolls back first. */
  stop(): Promise<void>;
}

/**
 * Consumes a Kafka message-log topic as one member of a consumer group: the Kafka source
 * (`createKafkaSource`, which keeps the guarantees) applied by `partitionsConsumedConcurrently`
 * loops, each batch in a transaction of `db` with `handleBatch`.
 */
export async function consumeKafka(options: ConsumeKafkaOptions): Promise<KafkaLogConsumer> {
  const { db, handleBatch } = options;
  const source = await createKafkaSource(options);
  await source.join();
  const stopping = new AbortController();
  const { signal } = stopping;

  async function loop(): Promise<void> {
    while (!signal.aborted) {
      const batch = await source.read({ from: null, batchSize: Number.MAX_SAFE_INTEGER, signal });
      if (!batch) {
        await source.wait(1_000, signal);
        continue;
      }
      try {
        const outcome = await db
          .transaction()
          .execute((tx) =>
            batch.commit(tx, (records) => handleBatch(tx, [...records], batch.info)),
          );
        batch.settle({ committed: outcome });
      } catch (error) {
        // The fetch fails with it: kafkajs offers the batch again (or reports the crash).
        batch.settle({ failed: error });
      }
    }
  }
  const loops = Array.from(
    { length: Math.max(1, options.partitionsConsumedConcurrently ?? 1) },
    () => loop(),
  );

  return {
    groupId: source.groupId,
    topic: source.topic,
    assignment: () => source.assignment(),
    async stop() {
      stopping.abort();
      await Promise.all(loops);
      await source.close();
    },
  };
}
