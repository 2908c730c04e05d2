import type { AppendStreamState, PrefixesFilter } from '@kurrent/kurrentdb-client';
import type { NewRecord, SpaceRef, StoredRecord } from '@stratagate/domain';
import { assertAppendable, idempotencyKeys, InvalidAppendError } from '../append-validation.ts';
import {
  WrongExpectedVersionError,
  type AppendResult,
  type LogCapabilities,
  type MessageLog,
} from '../message-log.ts';
import type { KurrentStreamsClient } from './kurrent-client.ts';
import { fromRecordedEvent, toEventData, type RecordedEventLike } from './kurrent-records.ts';
import {
  positionNumber,
  readPositionAfter,
  revisionAfterVersion,
  streamStateForVersion,
  versionOfRevision,
  versionOfStreamState,
} from './kurrent-revisions.ts';
import {
  assertStreamPrefix,
  DEFAULT_STREAM_PREFIX,
  isWellFormed,
  spaceNameProblem,
  spaceStreamName,
  streamNamePrefix,
} from './kurrent-streams.ts';

export const kurrentLogCapabilities: LogCapabilities = {
  expectedVersion: true,
  // `$all` is one total order (commit positions), read up to a monotonic checkpoint.
  globalOrder: true,
  idempotentAppend: true,
};

export interface KurrentLogOptions {
  client: KurrentStreamsClient;
  /** Dispose the client when the log closes. Default false: the caller owns it. */
  ownsClient?: boolean;
  /** Streams are `<prefix>-<tenant>-<space>`; one prefix is one log. Default `sg`. */
  streamPrefix?: string;
  /** Spaces whose idempotency keys are kept in memory (least recently used go). Default 1000. */
  keyIndexSpaces?: number;
  /** Appends retried after a concurrent writer moved the stream, before giving up. Default 20. */
  maxAppendAttempts?: number;
  /** Per-call deadline passed to the client, in ms. Default: the client's (10 s). */
  deadlineMs?: number;
}

export interface KurrentMessageLog extends MessageLog {
  readonly streamPrefix: string;
  /** The stream that holds a space's records. */
  streamName(space: SpaceRef): string;
}

/**
 * The append may or may not have been written (connection lost, deadline passed). Nothing is
 * pending on our side: retry the same records. With an idempotency key the retry answers
 * `duplicate` if the first attempt landed; without one, the same records at the same expected
 * version are deduplicated by KurrentDB (same event ids).
 */
export class KurrentAppendOutcomeUnknownError extends Error {
  readonly code = 'append_outcome_unknown';
  constructor(
    readonly space: SpaceRef,
    cause: unknown,
  ) {
    super(
      `append to ${space.tenantId}/${space.spaceId}: outcome unknown ` +
        `(${cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause)}); ` +
        'retry the same records to learn it',
      { cause },
    );
    this.name = 'KurrentAppendOutcomeUnknownError';
  }
}

/** Concurrent writers kept moving the stream for every attempt. */
export class KurrentAppendContentionError extends Error {
  readonly code = 'append_contention';
  constructor(space: SpaceRef, attempts: number) {
    super(
      `append to ${space.tenantId}/${space.spaceId} gave up after ${attempts} attempts: ` +
        'other writers moved the stream each time',
    );
    this.name = 'KurrentAppendContentionError';
  }
}

/** The client's error kinds (CommandError `type`), matched by value so the client is not loaded. */
const errorType = (error: unknown): string | undefined => {
  const type = (error as { type?: unknown } | null)?.type;
  return typeof type === 'string' ? type : undefined;
};
const STREAM_NOT_FOUND = 'stream-not-found';
const WRONG_EXPECTED_VERSION = 'wrong-expected-version';
/** Answers about the content itself: the same append can never succeed, nothing was written. */
const CONTENT_REJECTIONS = new Set([
  'maximum-append-size-exceeded',
  'append-record-size-exceeded',
  'transaction-max-size-exceeded',
  'invalid-argument',
]);
/** Refusals before anything was written. Every other failure leaves the outcome unknown. */
const REFUSALS = new Set([
  'access-denied',
  'not-leader',
  'stream-deleted',
  'stream-tombstoned',
  'unsupported',
]);

interface SpaceKeys {
  /** Every event up to this version has been scanned for keys. */
  version: number;
  /** Idempotency key → the version of the record holding it. */
  keys: Map<string, number>;
}

/**
 * The idempotency keys of recently used spaces, per stream. A stream only grows and events never
 * change, so an entry stays true and is completed by reading the events after `version`.
 */
class KeyIndex {
  private readonly spaces = new Map<string, SpaceKeys>();
  constructor(private readonly capacity: number) {}

  get(stream: string): SpaceKeys {
    const entry = this.spaces.get(stream) ?? { version: 0, keys: new Map<string, number>() };
    // Re-inserting keeps the map in least-recently-used order.
    this.spaces.delete(stream);
    this.spaces.set(stream, entry);
    while (this.spaces.size > this.capacity) {
      const oldest = this.spaces.keys().next().value;
      if (oldest === undefined) break;
      this.spaces.delete(oldest);
    }
    return entry;
  }

  /** Adds scanned records (ascending); only a continuation of what the entry covers. */
  add(entry: SpaceKeys, records: readonly StoredRecord[]): void {
    for (const record of records) {
      if (record.spaceVersion !== entry.version + 1) {
        if (record.spaceVersion <= entry.version) continue; // scanned by a concurrent refresh
        return; // a gap: leave the rest to the next refresh
      }
      const key = record.metadata.idempotencyKey;
      if (key !== undefined && !entry.keys.has(key)) entry.keys.set(key, record.spaceVersion);
      entry.version = record.spaceVersion;
    }
  }
}

/**
 * A MessageLog on KurrentDB: one stream per memory space, records as JSON events.
 * - append: with an idempotency key, bring the space's key index up to date (reads only the new
 *   events), answer `duplicate` if a key is stored, else append at exactly the revision just read;
 *   without keys, append at the caller's expected version or at any revision. Event ids are
 *   derived from the key (or record id), so a racing append of the same key that KurrentDB
 *   deduplicates is recognised when reading the appended events back (other record ids) and
 *   answered `duplicate`. A wrong-expected-version answer is retried (keys re-checked first) or
 *   reported as WrongExpectedVersionError when the caller's expectation failed.
 * - The appended records are read back from the stream: position and log time are the server's.
 * - readAll / headPosition read `$all` filtered on the stream prefix; position = commit position.
 * All reads require the leader, so a read after an append sees it.
 * See docs/adr/0010-kurrentdb-log-adapter.md.
 */
export async function createKurrentLog(options: KurrentLogOptions): Promise<KurrentMessageLog> {
  const { client } = options;
  const prefix = options.streamPrefix ?? DEFAULT_STREAM_PREFIX;
  assertStreamPrefix(prefix);
  const maxAttempts = options.maxAppendAttempts ?? 20;
  const deadline = options.deadlineMs === undefined ? {} : { deadline: options.deadlineMs };
  const keyIndex = new KeyIndex(options.keyIndexSpaces ?? 1000);
  const filter: PrefixesFilter = {
    filterOn: 'streamName',
    prefixes: [streamNamePrefix(prefix)],
    checkpointInterval: 1,
  };
  const listeners = new Set<() => void>();
  const inFlight = new Set<Promise<unknown>>();
  let closed = false;

  const assertOpen = () => {
    if (closed) throw new Error(`kurrentdb message log "${prefix}" is closed`);
  };
  const track = <T>(work: Promise<T>): Promise<T> => {
    inFlight.add(work);
    const done = () => inFlight.delete(work);
    void work.then(done, done);
    return work;
  };
  const notify = () => {
    for (const listener of [...listeners]) {
      try {
        listener();
      } catch (error) {
        // The append is durable: a failing wake-up must not make the caller retry it.
        process.emitWarning(`kurrentdb message log onAppended listener failed: ${String(error)}`);
      }
    }
  };
  const decode = (event: RecordedEventLike) => fromRecordedEvent(event, prefix);
  /** A space that cannot name a stream holds no records: reads answer empty. */
  const streamOrNull = (space: SpaceRef) =>
    spaceNameProblem(space) === null ? spaceStreamName(prefix, space) : null;

  /** Records of a stream after `afterVersion`, ascending; [] when the stream does not exist. */
  async function readStored(stream: string, afterVersion: number, maxCount?: number) {
    const stored: StoredRecord[] = [];
    try {
      for await (const resolved of client.readStream(stream, {
        fromRevision: revisionAfterVersion(afterVersion),
        direction: 'forwards',
        requiresLeader: true,
        ...(maxCount === undefined ? {} : { maxCount }),
        ...deadline,
      })) {
        if (resolved.event) stored.push(decode(resolved.event));
      }
    } catch (error) {
      if (errorType(error) === STREAM_NOT_FOUND) return [];
      throw error;
    }
    return stored;
  }

  async function readVersion(stream: string): Promise<number> {
    let last: RecordedEventLike | undefined;
    try {
      // Iterated to the end (maxCount 1), never left early: the client then closes the call.
      for await (const resolved of client.readStream(stream, {
        fromRevision: 'end',
        direction: 'backwards',
        maxCount: 1,
        requiresLeader: true,
        ...deadline,
      })) {
        last ??= resolved.event;
      }
    } catch (error) {
      if (errorType(error) === STREAM_NOT_FOUND) return 0;
      throw error;
    }
    return last ? versionOfRevision(last.revision) : 0;
  }

  /** Brings the stream's key index up to the stream's end; returns it (version = the head). */
  async function refreshKeys(stream: string): Promise<SpaceKeys> {
    const entry = keyIndex.get(stream);
    keyIndex.add(entry, await readStored(stream, entry.version));
    return entry;
  }

  async function recordAt(stream: string, version: number): Promise<StoredRecord> {
    const [record] = await readStored(stream, version - 1, 1);
    if (!record || record.spaceVersion !== version) {
      throw new Error(`kurrentdb stream ${stream} lost version ${version} (truncated or deleted?)`);
    }
    return record;
  }

  /** The stored record holding the first of `keys` (in their order), if any. */
  function firstStoredKey(entry: SpaceKeys, keys: readonly string[]): number | undefined {
    for (const key of keys) {
      const version = entry.keys.get(key);
      if (version !== undefined) return version;
    }
    return undefined;
  }

  async function append(
    space: SpaceRef,
    records: NewRecord[],
    expectedVersion: number | undefined,
  ): Promise<AppendResult> {
    assertAppendable(space, records);
    const problem = spaceNameProblem(space);
    if (problem) throw new InvalidAppendError(`space cannot name a KurrentDB stream: ${problem}`);
    for (const { metadata: m } of records) {
      if (!isWellFormed(m.recordId) || (m.idempotencyKey && !isWellFormed(m.idempotencyKey))) {
        // Their event ids would collide with other ids (UTF-8 has no lone surrogates).
        throw new InvalidAppendError(`record ${m.recordId}: ids must be well-formed Unicode`);
      }
    }
    if (expectedVersion !== undefined) streamStateForVersion(expectedVersion); // validates
    const stream = spaceStreamName(prefix, space);
    const keys = idempotencyKeys(records);

    if (records.length === 0) {
      const current = await readVersion(stream);
      if (expectedVersion !== undefined && expectedVersion !== current) {
        throw new WrongExpectedVersionError(space, expectedVersion, current);
      }
      return { status: 'appended', records: [], spaceVersion: current };
    }

    const events = records.map(toEventData);
    for (let attempt = 1; attempt <= maxAttempts; attempt += 1) {
      let streamState: AppendStreamState;
      let keyEntry: SpaceKeys | undefined;
      if (keys.length > 0) {
        // Duplicates first: a retried append whose first attempt landed must answer `duplicate`,
        // not a version mismatch caused by its own first attempt.
        keyEntry = await refreshKeys(stream);
        const current = keyEntry.version;
        const existingVersion = firstStoredKey(keyEntry, keys);
        if (existingVersion !== undefined) {
          const existing = await recordAt(stream, existingVersion);
          return { status: 'duplicate', existing, spaceVersion: current };
        }
        if (expectedVersion !== undefined && expectedVersion !== current) {
          throw new WrongExpectedVersionError(space, expectedVersion, current);
        }
        // Exactly the revision the keys were checked at: nothing can slip in between.
        streamState = streamStateForVersion(current);
      } else {
        streamState =
          expectedVersion === undefined ? 'any' : streamStateForVersion(expectedVersion);
      }

      let lastRevision: bigint;
      try {
        const result = await client.appendToStream(stream, events, { streamState, ...deadline });
        if (!result.success) {
          // Only with throwOnAppendFailure=false in the connection string.
          throw Object.assign(new Error('wrong expected version'), {
            type: WRONG_EXPECTED_VERSION,
            actualState:
              result.nextExpectedRevision < 0n ? 'no_stream' : result.nextExpectedRevision,
          });
        }
        lastRevision = result.nextExpectedRevision;
      } catch (error) {
        const type = errorType(error);
        if (type === WRONG_EXPECTED_VERSION) {
          if (keys.length > 0) continue; // the stream moved: check the keys again
          const actualState = (error as { actualState?: unknown }).actualState;
          const actual =
            actualState === 'no_stream' || typeof actualState === 'bigint'
              ? versionOfStreamState(actualState)
              : await readVersion(stream);
          if (expectedVersion !== undefined) {
            throw new WrongExpectedVersionError(space, expectedVersion, actual);
          }
          continue;
        }
        if (type !== undefined && CONTENT_REJECTIONS.has(type)) {
          throw new InvalidAppendError(
            `KurrentDB rejected the append to ${space.tenantId}/${space.spaceId} (${type}: ` +
              `${error instanceof Error ? error.message : String(error)}); nothing was appended`,
          );
        }
        if (type !== undefined && REFUSALS.has(type)) throw error;
        throw new KurrentAppendOutcomeUnknownError(space, error);
      }

      // Read the events back: their positions and log time are the server's. If KurrentDB
      // deduplicated the append (events with these ids were already at that revision), they
      // are the earlier records, recognisable by their record ids.
      const first = versionOfRevision(lastRevision) - records.length + 1;
      const stored = await readStored(stream, first - 1, records.length);
      const ours =
        stored.length === records.length &&
        stored.every((r, i) => r.metadata.recordId === records[i]?.metadata.recordId);
      if (ours) {
        if (keyEntry) keyIndex.add(keyEntry, stored);
        return { status: 'appended', records: stored, spaceVersion: first + records.length - 1 };
      }
      if (keys.length > 0) continue; // a racing append of the same key won: check the keys again
      throw new Error(
        `kurrentdb stream ${stream}: the append answered versions ${first}..${first + records.length - 1}, ` +
          'which hold other records (record ids reused with other content?)',
      );
    }
    throw new KurrentAppendContentionError(space, maxAttempts);
  }

  const log: KurrentMessageLog = {
    name: `kurrentdb(${streamNamePrefix(prefix)}*)`,
    capabilities: kurrentLogCapabilities,
    streamPrefix: prefix,
    streamName: (space) => spaceStreamName(prefix, space),

    async append(space, records, appendOptions = {}) {
      assertOpen();
      const result = await track(append(space, records, appendOptions.expectedVersion));
      if (result.status === 'appended' && result.records.length > 0) notify();
      return result;
    },

    async readSpace(space, afterVersion, limit) {
      assertOpen();
      const stream = streamOrNull(space);
      if (!stream || limit <= 0) return [];
      return readStored(stream, afterVersion, Math.floor(limit));
    },

    async readAll(afterPosition, limit) {
      assertOpen();
      if (limit <= 0) return [];
      const out: StoredRecord[] = [];
      // The start is inclusive where it names an event: ask for one more and drop it.
      for await (const resolved of client.readAll({
        fromPosition: readPositionAfter(afterPosition),
        direction: 'forwards',
        maxCount: Math.floor(limit) + 1,
        filter,
        requiresLeader: true,
        ...deadline,
      })) {
        if (!resolved.event) continue;
        const record = decode(resolved.event);
        if (record.position > afterPosition) out.push(record);
      }
      return out.slice(0, limit);
    },

    async findByIdempotencyKey(space, key) {
      assertOpen();
      const stream = streamOrNull(space);
      if (!stream) return null;
      const version = (await refreshKeys(stream)).keys.get(key);
      return version === undefined ? null : recordAt(stream, version);
    },

    async spaceVersion(space) {
      assertOpen();
      const stream = streamOrNull(space);
      return stream ? readVersion(stream) : 0;
    },

    async headPosition() {
      assertOpen();
      let last: RecordedEventLike | undefined;
      for await (const resolved of client.readAll({
        fromPosition: 'end',
        direction: 'backwards',
        maxCount: 1,
        filter,
        requiresLeader: true,
        ...deadline,
      })) {
        last ??= resolved.event;
      }
      return last ? positionNumber(last.position) : 0;
    },

    onAppended(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    async close() {
      if (closed) return;
      closed = true;
      listeners.clear();
      await Promise.allSettled([...inFlight]);
      if (options.ownsClient) await client.dispose();
    },
  };
  return log;
}
