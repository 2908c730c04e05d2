import { spaceKey, type SpaceRef, type StoredRecord } from '@stratagate/domain';
import type { AnyDb, Database } from '@stratagate/store';
import kafkajs, { type Kafka, type Producer, type RecordMetadata } from 'kafkajs';
import { sql } from 'kysely';
import { assertAppendable, idempotencyKeys, InvalidAppendError } from '../append-validation.ts';
import {
  WrongExpectedVersionError,
  type AppendResult,
  type LogCapabilities,
  type MessageLog,
} from '../message-log.ts';
import {
  ackedHeadPosition,
  ackedVersion,
  deletePending,
  findFirstAcked,
  insertPending,
  kafkaIndexTables,
  markAcked,
  migrateKafkaIndex,
  readAcked,
  readAckedAt,
  readPending,
  readSpaceHead,
  spaceLockKey,
  spacesWithPending,
} from './kafka-log.index.ts';
import { encodeRecord } from './kafka-records.ts';
import { ensureKafkaTopic, type EnsuredTopic } from './kafka-topic.ts';

const { Partitioners } = kafkajs;

export const kafkaLogCapabilities: LogCapabilities = {
  expectedVersion: true,
  // Kafka orders a partition, not the topic: there is no position every consumer agrees on.
  globalOrder: false,
  idempotentAppend: true,
};

/** Test seams only: let a spec fail an append right before or after the broker takes it. */
export interface KafkaLogHooks {
  beforeProduce?: (records: readonly StoredRecord[]) => Promise<void>;
  afterProduce?: (records: readonly StoredRecord[]) => Promise<void>;
}

export interface KafkaLogOptions {
  /** The caller's client (brokers, TLS, SASL, logging); the log creates its producer and admin. */
  kafka: Kafka;
  /** Holds the space index; the caller owns it (closing the log does not close it). */
  database: Database;
  topic: string;
  /** Postgres schema of the index. Default `kafka_log`. One schema belongs to one topic. */
  schema?: string;
  /** Partitions when the log creates the topic. Default 12. */
  numPartitions?: number;
  /** Replication when the log creates the topic. Default -1 (the broker's default). */
  replicationFactor?: number;
  /**
   * Kafka's idempotent producer (no duplicates from the client's own retries). Needs a real broker;
   * librdkafka's mock cluster does not support it. Default false.
   */
  idempotentProducer?: boolean;
  /** How long the leader may wait for the in-sync replicas (acks = -1). Default 30 s. */
  ackTimeoutMs?: number;
  hooks?: KafkaLogHooks;
}

export interface KafkaMessageLog extends MessageLog {
  readonly topic: string;
  readonly topicInfo: EnsuredTopic;
  /**
   * Completes every append that a crash or an unknown produce outcome left pending (produces it
   * again and indexes it). Runs at start; returns how many records it completed. Spaces another
   * live process is appending to are left to that process.
   */
  reconcile(): Promise<number>;
}

/**
 * The produce may or may not have reached the topic (timeout, lost connection, failed index
 * write). The records stay pending in the index and are produced again — so they do get appended —
 * by the next append to this space or by reconcile(). Retry with the same idempotency key to learn
 * the outcome.
 */
export class KafkaAppendOutcomeUnknownError extends Error {
  readonly code = 'append_outcome_unknown';
  constructor(
    readonly space: SpaceRef,
    readonly recordIds: readonly string[],
    cause: unknown,
  ) {
    super(
      `append of ${recordIds.length} record(s) to ${space.tenantId}/${space.spaceId}: outcome ` +
        `unknown (${cause instanceof Error ? cause.message : String(cause)}); the records stay ` +
        `pending and are completed by the next append to the space or by reconcile()`,
      { cause },
    );
    this.name = 'KafkaAppendOutcomeUnknownError';
  }
}

export class KafkaLogUnsupportedError extends Error {
  readonly code = 'unsupported';
  constructor(operation: string, reason: string) {
    super(`${operation} is not supported by the Kafka message log: ${reason}`);
    this.name = 'KafkaLogUnsupportedError';
  }
}

/**
 * Broker answers that reject the content itself. They are deterministic for the same bytes, so no
 * earlier attempt of the same records can have been written: safe to forget the pending rows.
 */
const CONTENT_REJECTIONS = new Set([
  'MESSAGE_TOO_LARGE',
  'RECORD_LIST_TOO_LARGE',
  'INVALID_RECORD',
]);

export function contentRejection(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 8; depth += 1) {
    const type = (e as { type?: unknown }).type;
    if (typeof type === 'string' && CONTENT_REJECTIONS.has(type)) return type;
    e =
      (e as { cause?: unknown; originalError?: unknown }).cause ??
      (e as { originalError?: unknown }).originalError;
  }
  return undefined;
}

/**
 * A MessageLog on one Kafka topic plus a Postgres index of every record. Per append, under a
 * per-space lock: roll forward anything pending, check idempotency keys and the expected version
 * against the index, write the records `pending` (versions, positions, log time), produce them
 * with acks = -1 to the space's partition, then mark them acknowledged with their offsets.
 * Readers of the index see an append all at once and only after the broker has it.
 * See docs/adr/0007-kafka-log-adapter.md for what this does and does not guarantee.
 */
export async function createKafkaLog(options: KafkaLogOptions): Promise<KafkaMessageLog> {
  const { kafka, database, topic, hooks = {} } = options;
  const { db } = database;
  const t = kafkaIndexTables(options.schema ?? 'kafka_log');
  await migrateKafkaIndex(db, t, topic);

  const admin = kafka.admin();
  await admin.connect();
  let topicInfo: EnsuredTopic;
  try {
    topicInfo = await ensureKafkaTopic(admin, {
      topic,
      numPartitions: options.numPartitions,
      replicationFactor: options.replicationFactor,
    });
  } finally {
    await admin.disconnect();
  }

  const producer: Producer = kafka.producer({
    createPartitioner: Partitioners.DefaultPartitioner,
    allowAutoTopicCreation: false,
    ...(options.idempotentProducer ? { idempotent: true, maxInFlightRequests: 1 } : {}),
  });
  await producer.connect();

  const inFlight = new Set<Promise<unknown>>();
  const listeners = new Set<() => void>();
  const ackTimeoutMs = options.ackTimeoutMs ?? 30_000;
  let closed = false;

  const assertOpen = () => {
    if (closed) throw new Error(`kafka message log "${topic}" is closed`);
  };
  const notify = () => {
    for (const listener of [...listeners]) {
      try {
        listener();
      } catch (error) {
        // The append is durable: a failing wake-up must not make the caller retry it.
        process.emitWarning(`kafka message log onAppended listener failed: ${String(error)}`);
      }
    }
  };

  /**
   * Runs `fn` as the only appender of `space`: an in-process queue, plus on a Postgres server a
   * session advisory lock on a dedicated connection, held across the produce. A crashed process's
   * lock goes with its connection. PGlite is one process and one session: the queue suffices, and
   * `fn` uses the shared handle so other queries are not blocked during the produce.
   * With `tryOnly`, returns `busy` instead of waiting for another process.
   */
  function withSpace<T>(
    space: SpaceRef,
    fn: (q: AnyDb) => Promise<T>,
    tryOnly = false,
  ): Promise<T | 'busy'> {
    const work = spaceQueue.run(`${t.schema}\u0000${spaceKey(space)}`, async () => {
      if (!database.capabilities.concurrentSessions) return fn(db);
      return db.connection().execute(async (conn) => {
        if (tryOnly) {
          const { rows } = await sql<{ locked: boolean }>`
            select pg_try_advisory_lock(${spaceLockKey(t, space)}) as locked`.execute(conn);
          if (!rows[0]?.locked) return 'busy' as const;
        } else {
          await sql`select pg_advisory_lock(${spaceLockKey(t, space)})`.execute(conn);
        }
        try {
          return await fn(conn);
        } finally {
          // A failed unlock means a broken connection, whose session (and lock) is gone already.
          await sql`select pg_advisory_unlock(${spaceLockKey(t, space)})`
            .execute(conn)
            .catch((error: unknown) =>
              process.emitWarning(`kafka log: releasing a space lock failed: ${String(error)}`),
            );
        }
      });
    });
    inFlight.add(work);
    void work.then(
      () => inFlight.delete(work),
      () => inFlight.delete(work),
    );
    return work;
  }

  /** Produces `records` (one space, consecutive versions) and indexes them as acknowledged. */
  async function produceAndIndex(
    q: AnyDb,
    space: SpaceRef,
    records: readonly StoredRecord[],
    partition: number | undefined,
  ): Promise<void> {
    const range = {
      first: records[0]!.spaceVersion,
      last: records[records.length - 1]!.spaceVersion,
    };
    const recordIds = records.map((r) => r.metadata.recordId);
    let acked: RecordMetadata;
    try {
      await hooks.beforeProduce?.(records);
      // One send to one partition is one record batch: the broker appends all of it or none.
      const answers = await producer.send({
        topic,
        acks: -1,
        timeout: ackTimeoutMs,
        messages: records.map((r) => encodeRecord(r, partition)),
      });
      acked = singleAnswer(answers, topic);
    } catch (error) {
      const rejected = contentRejection(error);
      if (rejected) {
        await deletePending(q, t, space, range);
        throw new InvalidAppendError(
          `the broker rejected the append to ${space.tenantId}/${space.spaceId} (${rejected}); nothing was appended`,
        );
      }
      throw new KafkaAppendOutcomeUnknownError(space, recordIds, error);
    }
    try {
      await hooks.afterProduce?.(records);
      const indexed = await markAcked(
        q,
        t,
        space,
        range,
        acked.partition,
        Number(acked.baseOffset),
      );
      // Cannot happen while every writer takes the space lock; fail loudly if one does not.
      if (indexed !== records.length) throw new Error('kafka log index moved under the space lock');
    } catch (error) {
      throw new KafkaAppendOutcomeUnknownError(space, recordIds, error);
    }
  }

  /** Produces the space's pending records again (they may be on the topic already: a copy). */
  async function rollForward(q: AnyDb, space: SpaceRef, partition: number | undefined) {
    const pending = await readPending(q, t, space);
    if (pending.length > 0) await produceAndIndex(q, space, pending, partition);
    return pending.length;
  }

  const log: KafkaMessageLog = {
    name: `kafka(${topic}; index ${t.schema})`,
    capabilities: kafkaLogCapabilities,
    topic,
    topicInfo,

    async append(space, records, appendOptions = {}): Promise<AppendResult> {
      assertOpen();
      assertAppendable(space, records);
      const keys = idempotencyKeys(records);
      const result = await withSpace(space, async (q): Promise<AppendResult> => {
        let head = await readSpaceHead(q, t, space);
        if (head.pending) {
          await rollForward(q, space, head.partition);
          head = await readSpaceHead(q, t, space);
        }
        const current = head.version;
        // Duplicates first: a retried append whose first attempt landed must answer `duplicate`,
        // not a version mismatch caused by its own first attempt.
        const existing = await findFirstAcked(q, t, space, keys);
        if (existing) return { status: 'duplicate', existing, spaceVersion: current };
        const { expectedVersion } = appendOptions;
        if (expectedVersion !== undefined && expectedVersion !== current) {
          throw new WrongExpectedVersionError(space, expectedVersion, current);
        }
        if (records.length === 0) return { status: 'appended', records: [], spaceVersion: current };
        const stored = await insertPending(q, t, records, current);
        await produceAndIndex(q, space, stored, head.partition);
        return { status: 'appended', records: stored, spaceVersion: current + records.length };
      });
      if (result === 'busy') throw new Error('unreachable: append never uses try-lock');
      if (result.status === 'appended' && result.records.length > 0) notify();
      return result;
    },

    async readSpace(space, afterVersion, limit) {
      assertOpen();
      return readAcked(db, t, space, afterVersion, limit);
    },

    async readAll() {
      throw new KafkaLogUnsupportedError(
        'readAll',
        'Kafka orders each partition, not the topic (capabilities.globalOrder = false); ' +
          'consume the topic with consumeKafka, or read one space with readSpace',
      );
    },

    async findByIdempotencyKey(space, key) {
      assertOpen();
      return findFirstAcked(db, t, space, [key]);
    },

    async spaceVersion(space) {
      assertOpen();
      return ackedVersion(db, t, space);
    },

    async readAt(space, position) {
      assertOpen();
      return readAckedAt(db, t, space, position);
    },

    /** Highest acknowledged position. Positions order a space, not the topic: a size, not a lag. */
    async headPosition() {
      assertOpen();
      return ackedHeadPosition(db, t);
    },

    onAppended(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    async reconcile() {
      assertOpen();
      let completed = 0;
      for (const space of await spacesWithPending(db, t)) {
        const done = await withSpace(
          space,
          async (q) => {
            const head = await readSpaceHead(q, t, space);
            return head.pending ? rollForward(q, space, head.partition) : 0;
          },
          true,
        );
        if (done !== 'busy') completed += done;
      }
      if (completed > 0) notify();
      return completed;
    },

    async close() {
      if (closed) return;
      closed = true;
      listeners.clear();
      // Appends already queued finish (or fail) before the producer goes.
      await Promise.allSettled([...inFlight]);
      await producer.disconnect();
    },
  };

  try {
    await log.reconcile();
  } catch (error) {
    await log.close();
    throw error;
  }
  return log;
}

function singleAnswer(answers: RecordMetadata[], topic: string): RecordMetadata {
  const mine = answers.filter((a) => a.topicName === topic);
  const [answer] = mine;
  if (mine.length !== 1 || !answer || answer.errorCode !== 0 || answer.baseOffset === undefined) {
    throw new Error(`unexpected produce answer: ${JSON.stringify(answers)}`);
  }
  return answer;
}

/** Serialises async work per key. */
class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();

  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const current = previous.then(fn);
    const tail = current.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return current;
  }
}

/**
 * One queue per process, keyed by index schema and space: two log instances on one index (one
 * PGlite session has no other lock between them) queue too. Equal schema names in different
 * databases only queue needlessly.
 */
const spaceQueue = new KeyedMutex();
