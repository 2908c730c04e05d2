import { spaceKey, type SpaceRef, type StoredRecord } from '@stratagate/domain';
import type { AnyDb } from '@stratagate/store';
import type { Admin, ConsumerConfig, EachBatchPayload, Kafka } from 'kafkajs';
import {
  sleepUnlessAborted,
  type Checkpoint,
  type CommitOutcome,
  type MessageSource,
  type SourceBatch,
} from '../message-source.ts';
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
  /** Records handed to the consumer. */
  applied: number;
  /** Messages of the batch not handed over: offsets applied before, or second copies. */
  skipped: number;
  /** The partition's checkpoint after the transaction. */
  nextOffset: number;
}

/** A group's checkpoint: the next offset of each partition it has applied. */
export interface KafkaCheckpoint extends Checkpoint {
  readonly offsets: ReadonlyMap<number, number>;
}

export interface KafkaSourceBatch extends SourceBatch {
  readonly info: KafkaBatchInfo;
}

export interface KafkaSourceOptions {
  kafka: Kafka;
  /** Where checkpoints are read outside a batch. */
  db: AnyDb;
  topic: string;
  groupId: string;
  checkpoints: KafkaCheckpointStore;
  /** Default 10 s; tests on the mock cluster use 3 s. */
  sessionTimeout?: number;
  heartbeatInterval?: number;
  rebalanceTimeout?: number;
  /** How long a fetch waits for new records. Default 500 ms (also bounds how fast close() is). */
  maxWaitTimeInMs?: number;
  /**
   * Partitions of this member fetched at the same time (default 1). Each partition stays in
   * order; their batches can be applied side by side by as many loops of the consumer.
   */
  partitionsConsumedConcurrently?: number;
  /** Further kafkajs consumer settings (assigners, fetch sizes...). */
  consumerConfig?: Omit<ConsumerConfig, 'groupId'>;
  /** Crashes of the kafkajs consumer (it restarts itself on retriable errors) and seek failures. */
  onError?: (error: unknown) => void;
  /** After a batch is fetched and decoded, before it is offered (tracing; tests pause here). */
  beforeApply?: (batch: KafkaBatchInfo) => Promise<void> | void;
  /** After each group join, with the partitions this member now holds (logs, tests). */
  onAssignment?: (partitions: number[]) => void;
  /** After each batch's transaction committed (metrics: throughput, lag against highWatermark). */
  onBatch?: (outcome: KafkaBatchOutcome & { highWatermark: number }) => void;
  /**
   * Opens sealed records as the topic holds them (ADR 0046), inside the batch's transaction:
   * the data keys sit in the same database. Without it records are handed over as read.
   */
  open?: (records: StoredRecord[], tx: AnyDb) => Promise<StoredRecord[]>;
}

export interface KafkaMessageSource extends MessageSource {
  readonly groupId: string;
  readonly topic: string;
  read(options: Parameters<MessageSource['read']>[0]): Promise<KafkaSourceBatch | null>;
  /** Partitions this member got at its last group join (empty before the first). */
  assignment(): number[];
  /**
   * Joins the group and starts fetching (resolves once subscribed). Until then the source only
   * answers for its checkpoint (`checkpoint`, `behind`, `handOver`, `caughtUp`, `head`).
   */
  join(): Promise<void>;
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

type Settled =
  | { kind: 'consumed' | 'behind' | 'gap' | 'closed'; nextOffset: number }
  | { kind: 'failed'; error: unknown };

/** A fetched kafkajs batch, offered in chunks; its eachBatch call waits until it is settled. */
interface Pending {
  partition: number;
  messages: { offset: number; record: StoredRecord }[];
  /** Index of the first message not yet applied. */
  next: number;
  taken: boolean;
  highWatermark: number;
  resolveOffset: (offset: string) => void;
  settle: (s: Settled) => void;
}

const sum = (offsets: ReadonlyMap<number, number>) =>
  [...offsets.values()].reduce((a, b) => a + b, 0);

/**
 * A Kafka message-log topic as a MessageSource: one member of a consumer group (ADR 0012, 0049).
 * Offsets are never committed to Kafka (autoCommit off): the truth is the Postgres checkpoint,
 * moved in the consumer's transaction. Per batch, in that transaction: lock the partition's
 * checkpoint row, drop offsets below it (a zombie member or a re-read after a rebalance), drop
 * records whose space version was applied already (a second copy), apply the rest, move the
 * checkpoint. On assignment the member seeks each partition to its checkpoint; a batch that
 * starts after the checkpoint makes it seek back, so no offset is ever passed over.
 *
 * kafkajs pushes batches; `read` pulls: each fetched batch waits in a queue (its eachBatch call
 * with it) and is offered in chunks of at most `batchSize`, one chunk of a partition at a time.
 * `from` is not used: a member's position is its fetch position, seeded from the stored
 * checkpoints, and the claim in the transaction is what decides.
 */
export async function createKafkaSource(options: KafkaSourceOptions): Promise<KafkaMessageSource> {
  const { kafka, db, topic, groupId, checkpoints } = options;
  const report = (error: unknown) => options.onError?.(error);
  const sessionTimeout = options.sessionTimeout ?? 10_000;
  const heartbeatInterval = options.heartbeatInterval ?? Math.max(100, sessionTimeout / 6);
  const consumer = kafka.consumer({
    ...options.consumerConfig,
    groupId,
    sessionTimeout,
    heartbeatInterval,
    rebalanceTimeout: options.rebalanceTimeout ?? 30_000,
    maxWaitTimeInMs: options.maxWaitTimeInMs ?? 500,
  });

  // Checkpoints as this member last knew them: seeking from here at a join needs no round trip.
  // They only grow, so a stale value is at worst an offset applied already (dropped, re-sought).
  // Read at join: a source not joined does no I/O until asked (a rebuild's switch transaction
  // asks groups for their checkpoints, on the embedded store's one session).
  const known = new Map<number, number>();
  let assigned: number[] = [];
  let running = true;
  let closed: Promise<void> | undefined;
  const gapAt = new Map<number, number>();
  let restartTimer: NodeJS.Timeout | undefined;
  let crashes = 0;
  const queue: Pending[] = [];
  const waiters = new Set<() => void>();
  let admin: Promise<Admin> | undefined;

  const notify = () => {
    for (const wake of waiters) wake();
  };
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
  // A log consumer keeps going until closed: restart with a backoff.
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
    if (!isRunning() || isStale() || !first || !last || !running) return;
    const firstOffset = Number(first.offset);
    await options.beforeApply?.({
      topic,
      partition,
      firstOffset,
      lastOffset: Number(last.offset),
    });
    // The consumer applies other partitions' batches meanwhile: stay in the group.
    const beat = setInterval(() => void heartbeat().catch(() => {}), heartbeatInterval);
    const settled = await new Promise<Settled>((settle) => {
      queue.push({
        partition,
        messages: messages.map((m) => ({
          offset: Number(m.offset),
          record: decodeRecord(topic, partition, m),
        })),
        next: 0,
        taken: false,
        highWatermark: Number(batch.highWatermark),
        resolveOffset,
        settle,
      });
      notify();
    }).finally(() => clearInterval(beat));
    if (settled.kind === 'failed') throw settled.error;
    if (settled.kind === 'closed') return;
    const ref: PartitionRef = { groupId, topic, partition };
    if (settled.kind === 'consumed') {
      gapAt.delete(partition);
    } else if (settled.kind === 'behind') {
      seek(partition, settled.nextOffset);
    } else {
      // Once may be a seek that lost a race with the first fetch; twice at the same spot is real.
      if (gapAt.get(partition) === settled.nextOffset) {
        throw new KafkaRecordsMissingError(ref, settled.nextOffset, firstOffset);
      }
      gapAt.set(partition, settled.nextOffset);
      seek(partition, settled.nextOffset);
    }
    await heartbeat();
  }

  function take(p: Pending, batchSize: number): KafkaSourceBatch {
    p.taken = true;
    const chunk = p.messages.slice(p.next, p.next + Math.max(1, batchSize));
    const info: KafkaBatchInfo = {
      topic,
      partition: p.partition,
      firstOffset: chunk[0]!.offset,
      lastOffset: chunk[chunk.length - 1]!.offset,
    };
    const ref: PartitionRef = { groupId, topic, partition: p.partition };
    let result: KafkaBatchOutcome | undefined;
    const done = (nextOffset: number) => {
      const offsets = new Map(known);
      offsets.set(p.partition, Math.max(nextOffset, known.get(p.partition) ?? 0));
      return { position: sum(offsets), offsets } satisfies KafkaCheckpoint;
    };
    const remove = () => {
      const at = queue.indexOf(p);
      if (at >= 0) queue.splice(at, 1);
    };

    return {
      info,
      records: chunk.map((c) => c.record),
      from: info.firstOffset,
      to: info.lastOffset + 1,
      attributes: { 'stratagate.partition': String(p.partition) },

      async commit(tx, apply): Promise<CommitOutcome> {
        const next = await checkpoints.claim(tx, ref);
        const outcome = (o: KafkaBatchOutcome['outcome'], applied: number, nextOffset: number) => {
          result = { ...info, outcome: o, applied, skipped: chunk.length - applied, nextOffset };
          return {
            applied,
            checkpoint: done(nextOffset),
            moved: o !== 'applied',
            lag: { partition: p.partition, records: Math.max(0, p.highWatermark - nextOffset) },
          };
        };
        if (info.firstOffset > next) return outcome('gap', 0, next);
        const fresh = chunk.filter((d) => d.offset >= next);
        if (fresh.length === 0) return outcome('behind', 0, next);

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
              `${topic}[${p.partition}]@${offset}`,
            );
          }
          versions.set(key, record.spaceVersion);
          moved.set(key, { space: spaces.get(key)!, version: record.spaceVersion });
          records.push(record);
        }
        if (records.length > 0)
          await apply(options.open ? await options.open(records, tx) : records);
        await checkpoints.storeSpaceVersions(tx, groupId, topic, [...moved.values()]);
        await checkpoints.advance(tx, ref, info.lastOffset + 1);
        return outcome('applied', records.length, info.lastOffset + 1);
      },

      settle(settled) {
        if ('failed' in settled) {
          remove();
          p.settle({ kind: 'failed', error: settled.failed });
          return;
        }
        const r = result!;
        options.onBatch?.({ ...r, highWatermark: p.highWatermark });
        if (r.outcome !== 'applied') {
          remove();
          if (r.outcome === 'behind') known.set(p.partition, r.nextOffset);
          p.settle({ kind: r.outcome, nextOffset: r.nextOffset });
          return;
        }
        known.set(p.partition, r.nextOffset);
        p.resolveOffset(String(info.lastOffset));
        p.next += chunk.length;
        p.taken = false;
        if (p.next >= p.messages.length) {
          remove();
          p.settle({ kind: 'consumed', nextOffset: r.nextOffset });
        } else {
          notify();
        }
      },
    };
  }

  async function groupEnds(): Promise<Map<number, { low: number; high: number }>> {
    // Closed: an admin client made now would never be disconnected, and its sockets would keep
    // the process alive (a rebuild's last progress report asks for the head after the close).
    if (!running) throw new Error(`Kafka source of ${groupId} is closed`);
    admin ??= (async () => {
      const a = kafka.admin();
      await a.connect();
      return a;
    })();
    const ends = await (await admin).fetchTopicOffsets(topic);
    return new Map(ends.map((e) => [e.partition, { low: Number(e.low), high: Number(e.high) }]));
  }

  const runConfig = {
    autoCommit: false,
    eachBatchAutoResolve: false,
    partitionsConsumedConcurrently: options.partitionsConsumedConcurrently ?? 1,
    eachBatch,
  };
  let joined: Promise<void> | undefined;
  const join = () =>
    (joined ??= (async () => {
      for (const [partition, next] of await checkpoints.read(groupId, topic)) {
        known.set(partition, next);
      }
      await consumer.connect();
      try {
        await consumer.subscribe({ topic, fromBeginning: true });
        await consumer.run(runConfig);
      } catch (error) {
        await consumer.disconnect();
        throw error;
      }
    })());

  const checkpointOf = (offsets: Map<number, number>): KafkaCheckpoint => ({
    position: sum(offsets),
    offsets,
  });

  return {
    name: `kafka:${topic}`,
    groupId,
    topic,
    capabilities: { globalOrder: false, partialBatches: false, concurrentBatches: true },
    assignment: () => [...assigned],
    join,

    async read({ batchSize, signal }) {
      if (signal?.aborted || !running) return null;
      const p = queue.find((q) => !q.taken);
      return p ? take(p, batchSize) : null;
    },

    async wait(idleMs, signal) {
      if (queue.some((q) => !q.taken) || signal?.aborted) return;
      const woken = new AbortController();
      const wake = () => woken.abort();
      waiters.add(wake);
      signal?.addEventListener('abort', wake, { once: true });
      try {
        await sleepUnlessAborted(idleMs, woken.signal);
      } finally {
        waiters.delete(wake);
        signal?.removeEventListener('abort', wake);
      }
    },

    checkpoint: async (q = db) => checkpointOf(await checkpoints.read(groupId, topic, q)),

    behind(mine, theirs) {
      const own = (mine as KafkaCheckpoint).offsets;
      let n = 0;
      for (const [partition, offset] of (theirs as KafkaCheckpoint).offsets) {
        n += Math.max(0, offset - (own.get(partition) ?? 0));
      }
      return n;
    },

    async caughtUp() {
      const [ends, next] = await Promise.all([groupEnds(), checkpoints.read(groupId, topic)]);
      for (const [partition, { low, high }] of ends) {
        if ((next.get(partition) ?? low) < high) return false;
      }
      return true;
    },

    async head() {
      return [...(await groupEnds()).values()].reduce((n, e) => n + e.high, 0);
    },

    async handOver(tx, to) {
      const other = to as Partial<KafkaMessageSource>;
      if (other.topic !== topic || typeof other.groupId !== 'string') {
        throw new Error(`cannot hand ${groupId}'s offsets on ${topic} over to ${to.name}`);
      }
      await checkpoints.copyGroup(tx, topic, groupId, other.groupId);
    },

    close() {
      running = false;
      clearTimeout(restartTimer);
      notify();
      // Batches not taken go back: nothing of them was applied, the checkpoint says where to
      // start again.
      for (const p of queue.filter((q) => !q.taken)) {
        queue.splice(queue.indexOf(p), 1);
        p.settle({ kind: 'closed', nextOffset: p.messages[p.next]!.offset });
      }
      const leave = joined?.then(
        () => consumer.disconnect(),
        () => {},
      );
      closed ??= Promise.resolve(leave)
        .then(async () => {
          if (admin) await (await admin).disconnect();
        })
        .finally(() => {
          assigned = [];
        });
      return closed;
    },
  };
}
