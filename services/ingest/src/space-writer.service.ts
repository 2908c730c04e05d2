import { randomUUID } from 'node:crypto';
import {
  decodeRecord,
  evolveSpaceWriter,
  initialSpaceWriterState,
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

export const newId = (prefix: string) => `${prefix}_${randomUUID().replace(/-/g, '')}`;

export type AppendContext = RecordContext;

export type Decision = (state: SpaceWriterState) => MemoryRecord[];

export type WriteOutcome =
  | { status: 'appended'; records: StoredRecord[]; state: SpaceWriterState }
  | { status: 'duplicate'; existing: StoredRecord; state: SpaceWriterState };

const MAX_ATTEMPTS = 8;

/**
 * Serialised writes per space (MM-GEN-8): the write-side state is folded from the space's records
 * and cached; a decision is appended with the expected space version, and a conflicting writer
 * elsewhere (another ingest process) makes us catch up and decide again. Records carry the trace
 * context of the caller's active span (`newRecord`); appended ones are counted by type.
 */
export class SpaceWriterService {
  private readonly states = new Map<string, SpaceWriterState>();
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(private readonly log: MessageLog) {}

  async state(space: SpaceRef): Promise<SpaceWriterState> {
    return this.withLock(space, () => this.catchUp(space));
  }

  async write(space: SpaceRef, ctx: AppendContext, decide: Decision): Promise<WriteOutcome> {
    return this.withLock(space, async () => {
      for (let attempt = 1; ; attempt++) {
        // The cached state is usually current; a write elsewhere shows up as a version conflict.
        const cached = attempt === 1 ? this.states.get(spaceKey(space)) : undefined;
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
          return { status: 'appended', records: result.records, state };
        } catch (error) {
          if (error instanceof WrongExpectedVersionError && attempt < MAX_ATTEMPTS) continue;
          throw error;
        }
      }
    });
  }

  private async catchUp(space: SpaceRef): Promise<SpaceWriterState> {
    const key = spaceKey(space);
    const state = this.states.get(key) ?? initialSpaceWriterState();
    for (;;) {
      const page = await this.log.readSpace(space, state.version, 1000);
      for (const stored of page) this.apply(state, stored);
      if (page.length < 1000) break;
    }
    this.states.set(key, state);
    return state;
  }

  private apply(state: SpaceWriterState, stored: StoredRecord) {
    const decoded = decodeRecord(stored);
    if (decoded) evolveSpaceWriter(state, decoded, stored.spaceVersion);
    else state.version = stored.spaceVersion;
  }

  private async withLock<T>(space: SpaceRef, fn: () => Promise<T>): Promise<T> {
    const key = spaceKey(space);
    const previous = this.locks.get(key) ?? Promise.resolve();
    const run = previous.then(fn, fn);
    const settled = run.catch(() => undefined);
    this.locks.set(key, settled);
    try {
      return await run;
    } finally {
      if (this.locks.get(key) === settled) this.locks.delete(key);
    }
  }
}
