import { randomUUID } from 'node:crypto';
import {
  decodeRecord,
  evolveSpaceWriter,
  initialSpaceWriterState,
  snapshotSpaceWriter,
  spaceKey,
  type MemoryRecord,
  type SpaceRef,
  type SpaceWriterState,
  type StoredRecord,
} from '@stratagate/domain';
import {
  newRecord,
  WrongExpectedVersionError,
  type MessageLog,
  type RecordContext,
} from '@stratagate/log';
import { recordAppended } from '@stratagate/telemetry';
import { KeyedLock } from './keyed-lock.ts';
import type { WriterSnapshots } from './writer-snapshots.ts';

export const newId = (prefix: string) => `${prefix}_${randomUUID().replace(/-/g, '')}`;

export type AppendContext = RecordContext;

export type Decision = (state: SpaceWriterState) => MemoryRecord[];

export type WriteOutcome =
  | { status: 'appended'; records: StoredRecord[]; state: SpaceWriterState }
  | { status: 'duplicate'; existing: StoredRecord; state: SpaceWriterState };

const MAX_ATTEMPTS = 8;

export interface SpaceWriterOptions {
  /**
   * Where folded states are kept (ADR 0024): a space's first write after a start then reads only
   * the records after its snapshot. Without it every first write folds the whole space.
   */
  snapshots?: WriterSnapshots;
  /** A snapshot is saved once the state is this many records past the last one (default 500). */
  snapshotEvery?: number;
  /** A snapshot that could not be saved (it is tried again later); default: a process warning. */
  onSnapshotError?: (error: unknown) => void;
  /**
   * Folded states kept in memory at most (default 10,000 spaces), least recently written
   * dropped first. With snapshots a dropped state costs a snapshot read and at most
   * `snapshotEvery` records at the space's next write; without them, a fold of the whole space.
   */
  maxStates?: number;
}

/**
 * Serialised writes per space (MM-GEN-8): the write-side state is folded from the space's records
 * and cached; a decision is appended with the expected space version, and a conflicting writer
 * elsewhere (another ingest process) makes us catch up and decide again. Records carry the trace
 * context of the caller's active span (`newRecord`); appended ones are counted by type.
 */
export class SpaceWriterService {
  /** Folded states by space key, least recently used first. */
  private readonly states = new Map<string, SpaceWriterState>();
  private readonly refs = new Map<string, SpaceRef>();
  private readonly locks = new KeyedLock();
  private readonly lanes = new KeyedLock();
  /** Per space: the version of the last snapshot loaded or saved. */
  private readonly snapshotted = new Map<string, number>();
  /** Snapshot saves in flight (they never hold up the write that triggered them). */
  private readonly saving = new Set<Promise<void>>();
  /** The save in flight per space, which a load of that space waits for. */
  private readonly savingFor = new Map<string, Promise<void>>();
  private readonly snapshotEvery: number;
  private readonly maxStates: number;

  constructor(
    private readonly log: MessageLog,
    private readonly options: SpaceWriterOptions = {},
  ) {
    this.snapshotEvery = Math.max(1, options.snapshotEvery ?? 500);
    this.maxStates = Math.max(1, options.maxStates ?? 10_000);
  }

  /** Spaces whose folded state is in memory (metrics, tests). */
  get cachedSpaces(): number {
    return this.states.size;
  }

  /** Waits for the snapshot saves in flight (before the database closes; tests). */
  async flush(): Promise<void> {
    while (this.saving.size > 0) await Promise.all([...this.saving]);
  }

  /**
   * Runs `fn` alone among this process's calls of the same `lane` in `space`, in call order: an
   * operation that reads, decides and appends across several steps (remember's gate and its
   * commit) is serialised per space without holding the space's write lock, so turns and other
   * writes go on meanwhile. Across processes the operation still checks what it read at commit.
   */
  async lane<T>(space: SpaceRef, lane: string, fn: () => Promise<T>): Promise<T> {
    return this.lanes.run(`${lane}:${spaceKey(space)}`, fn);
  }

  async state(space: SpaceRef): Promise<SpaceWriterState> {
    return this.withLock(space, () => this.catchUp(space));
  }

  /**
   * Decides and appends under the space's lock. `whileLocked` runs after the append (or the
   * duplicate), before the lock is released: what must happen before this process's next write
   * to the space (an erasure deletes the keys its records were sealed with, ADR 0046).
   */
  async write(
    space: SpaceRef,
    ctx: AppendContext,
    decide: Decision,
    whileLocked?: (outcome: WriteOutcome) => Promise<void>,
  ): Promise<WriteOutcome> {
    if (whileLocked) {
      return this.withLock(space, async () => {
        const outcome = await this.writeLocked(space, ctx, decide);
        await whileLocked(outcome);
        return outcome;
      });
    }
    return this.withLock(space, () => this.writeLocked(space, ctx, decide));
  }

  private async writeLocked(
    space: SpaceRef,
    ctx: AppendContext,
    decide: Decision,
  ): Promise<WriteOutcome> {
    for (let attempt = 1; ; attempt++) {
      // The cached state is usually current; a write elsewhere shows up as a version conflict.
      const cached = attempt === 1 ? this.recent(spaceKey(space)) : undefined;
      const state = cached ?? (await this.catchUp(space));
      const decided = decide(state);
      if (decided.length === 0) return { status: 'appended', records: [], state };
      const first = newRecord(space, decided[0]!, ctx);
      // Records after the first are caused by it (e.g. the seal a turn triggered).
      const rest = decided.slice(1).map((r) =>
        newRecord(space, r, {
          ...ctx,
          idempotencyKey: undefined,
          causationId: first.metadata.recordId,
        }),
      );
      const records = [first, ...rest];
      try {
        const result = await this.log.append(space, records, { expectedVersion: state.version });
        if (result.status === 'duplicate') {
          return {
            status: 'duplicate',
            existing: result.existing,
            state: await this.catchUp(space),
          };
        }
        for (const stored of result.records) this.apply(state, stored);
        recordAppended(this.log.name, result.records);
        this.maybeSnapshot(space, state);
        return { status: 'appended', records: result.records, state };
      } catch (error) {
        if (error instanceof WrongExpectedVersionError && error.actual < state.version) {
          // Our state is ahead of the log: it came from a snapshot the log does not back (a
          // log emptied or replaced under the same database). Fold the log itself.
          await this.forget(space);
        }
        if (error instanceof WrongExpectedVersionError && attempt < MAX_ATTEMPTS) continue;
        throw error;
      }
    }
  }

  private async catchUp(space: SpaceRef): Promise<SpaceWriterState> {
    const key = spaceKey(space);
    const state =
      this.states.get(key) ?? (await this.loadSnapshot(space)) ?? initialSpaceWriterState();
    for (;;) {
      const page = await this.log.readSpace(space, state.version, 1000);
      for (const stored of page) this.apply(state, stored);
      if (page.length < 1000) break;
    }
    this.states.delete(key);
    this.states.set(key, state);
    this.refs.set(key, space);
    // A long fold (a first start on an existing log) is not repeated at the next start.
    this.maybeSnapshot(space, state);
    this.evict();
    return state;
  }

  /** The cached state of `key`, marked as the most recently used. */
  private recent(key: string): SpaceWriterState | undefined {
    const state = this.states.get(key);
    if (state) {
      this.states.delete(key);
      this.states.set(key, state);
    }
    return state;
  }

  /**
   * Drops the least recently used states past `maxStates`, never one a write holds. A dropped
   * state that moved since its last snapshot is snapshotted first, so its next fold is short.
   */
  private evict(): void {
    for (const [key, state] of this.states) {
      if (this.states.size <= this.maxStates) return;
      if (this.locks.held(key)) continue;
      const space = this.refs.get(key);
      if (space && state.version > (this.snapshotted.get(key) ?? 0)) {
        this.save(space, key, state, this.snapshotted.get(key) ?? 0);
      }
      this.states.delete(key);
      this.refs.delete(key);
      this.snapshotted.delete(key);
    }
  }

  private async loadSnapshot(space: SpaceRef): Promise<SpaceWriterState | null> {
    const snapshots = this.options.snapshots;
    if (!snapshots) return null;
    const key = spaceKey(space);
    // A state dropped a moment ago may still be on its way to the store.
    await this.savingFor.get(key);
    const state = await snapshots.load(this.log.name, space);
    if (state) this.snapshotted.set(key, state.version);
    return state;
  }

  /** Saves a snapshot in the background once the state is `snapshotEvery` records past the last. */
  private maybeSnapshot(space: SpaceRef, state: SpaceWriterState): void {
    const snapshots = this.options.snapshots;
    if (!snapshots) return;
    const key = spaceKey(space);
    const last = this.snapshotted.get(key) ?? 0;
    if (state.version - last < this.snapshotEvery) return;
    this.save(space, key, state, last);
  }

  private save(space: SpaceRef, key: string, state: SpaceWriterState, last: number): void {
    const snapshots = this.options.snapshots;
    if (!snapshots) return;
    this.snapshotted.set(key, state.version);
    // Taken now, under the space's lock: later writes change the live state, not this copy.
    const snapshot = snapshotSpaceWriter(state);
    const saved = snapshots.save(this.log.name, space, snapshot).catch((error: unknown) => {
      // Tried again after the next write; meanwhile the older snapshot (or none) serves.
      if (this.snapshotted.get(key) === snapshot.version) this.snapshotted.set(key, last);
      if (this.options.onSnapshotError) this.options.onSnapshotError(error);
      else process.emitWarning(`space writer: snapshot not saved: ${String(error)}`);
    });
    this.saving.add(saved);
    this.savingFor.set(key, saved);
    void saved.finally(() => {
      this.saving.delete(saved);
      if (this.savingFor.get(key) === saved) this.savingFor.delete(key);
    });
  }

  /** Drops the cached state and the stored snapshot of `space`: the next fold starts at 0. */
  private async forget(space: SpaceRef): Promise<void> {
    const key = spaceKey(space);
    this.states.delete(key);
    this.refs.delete(key);
    this.snapshotted.delete(key);
    await this.flush();
    await this.options.snapshots?.discard(this.log.name, space);
  }

  private apply(state: SpaceWriterState, stored: StoredRecord) {
    const decoded = decodeRecord(stored);
    if (decoded) evolveSpaceWriter(state, decoded, stored.spaceVersion);
    else state.version = stored.spaceVersion;
  }

  private async withLock<T>(space: SpaceRef, fn: () => Promise<T>): Promise<T> {
    return this.locks.run(spaceKey(space), fn);
  }
}
