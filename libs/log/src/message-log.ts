import type { NewRecord, SpaceRef, StoredRecord } from '@stratagate/domain';

/** `expectedVersion` is the space version the caller last saw (0 = the space has no records yet). */
export interface AppendOptions {
  expectedVersion?: number;
}

export type AppendResult =
  | { status: 'appended'; records: StoredRecord[]; spaceVersion: number }
  /**
   * Some record's metadata.idempotencyKey was already stored in that space: nothing was appended.
   * `existing` is the stored record holding the first such key (in the order of the append).
   */
  | { status: 'duplicate'; existing: StoredRecord; spaceVersion: number };

/**
 * What an adapter can promise. A `false` here is a declared limitation: the contract suite reports
 * the matching cases as skipped instead of letting them pass.
 */
export interface LogCapabilities {
  /** Optimistic concurrency on append (`AppendOptions.expectedVersion`). */
  expectedVersion: boolean;
  /** `readAll` delivers every space in one total order of positions. */
  globalOrder: boolean;
  /** Appends deduplicate on `metadata.idempotencyKey` per space. */
  idempotentAppend: boolean;
}

export interface MessageLog {
  readonly name: string;
  readonly capabilities: LogCapabilities;
  /**
   * Appends atomically (all or nothing) to one space, in order. Resolves only once durable.
   * All records must carry metadata.tenantId/spaceId equal to `space` (else throw).
   */
  append(space: SpaceRef, records: NewRecord[], options?: AppendOptions): Promise<AppendResult>;
  /** Records of one space with spaceVersion > afterVersion, ascending, at most `limit`. */
  readSpace(space: SpaceRef, afterVersion: number, limit: number): Promise<StoredRecord[]>;
  /**
   * All spaces: records with position > afterPosition ascending, at most `limit`. Never returns a
   * record if a record with a lower position may still become visible (safe tailing).
   */
  readAll(afterPosition: number, limit: number): Promise<StoredRecord[]>;
  findByIdempotencyKey(space: SpaceRef, key: string): Promise<StoredRecord | null>;
  /**
   * The record of `space` stored at `position` (null if none, or another space's). Optional:
   * adapters whose positions are their own (Postgres table, Kafka index) have it; it serves
   * tracing (the consolidator continues the trace of the record that made a job due).
   */
  readAt?(space: SpaceRef, position: number): Promise<StoredRecord | null>;
  spaceVersion(space: SpaceRef): Promise<number>;
  /**
   * Highest committed position (0 when empty): what consumers measure their lag against.
   * readAll reaches it once every older concurrent transaction has finished.
   */
  headPosition(): Promise<number>;
  /**
   * In-process wake-up after this instance appended; returns an unsubscribe function. Consumers
   * must still poll, since other processes append too.
   */
  onAppended(listener: () => void): () => void;
  /**
   * Upkeep for a background reader to run between its batches, never on the append path.
   * Optional. The Postgres-table log keeps its tables' planner statistics: without them the
   * idempotency look-up of an append scans every record of the space (ADR 0029).
   */
  maintain?(): Promise<void>;
  close(): Promise<void>;
}

export class WrongExpectedVersionError extends Error {
  readonly code = 'wrong_expected_version';
  constructor(
    readonly space: SpaceRef,
    readonly expected: number,
    readonly actual: number,
  ) {
    super(
      `wrong expected version for space ${space.tenantId}/${space.spaceId}: expected ${expected}, actual ${actual}`,
    );
    this.name = 'WrongExpectedVersionError';
  }
}
