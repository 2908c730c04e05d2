import {
  decodeRecord,
  evolveProfile,
  initialProfileState,
  profileStream,
  spaceKey,
  type MemoryRecord,
  type ProfileState,
  type StoredRecord,
} from '@stratagate/domain';
import { newRecord, WrongExpectedVersionError, type MessageLog } from '@stratagate/log';
import { recordAppended } from '@stratagate/telemetry';
import { KeyedLock } from './keyed-lock.ts';
import type { AppendContext } from './space-writer.ts';

/** A decision on a profile: the records to append and what the caller answers with. */
export type ProfileDecision<T> = (state: ProfileState) => { records: MemoryRecord[]; result: T };

export type ProfileWriteOutcome<T> =
  | { status: 'appended'; result: T; records: StoredRecord[]; state: ProfileState }
  | { status: 'duplicate'; existing: StoredRecord; state: ProfileState };

const MAX_ATTEMPTS = 8;
const PAGE = 1000;

/**
 * Serialised, versioned writes to tenant profiles (ADR 0050, MM-PRO-5). A profile is a stream of
 * its own in the log; its state is folded from it (profiles change rarely, so no snapshots) and
 * kept per process. A decision is appended with the stream version it was made on: a writer in
 * another process (the consolidator applying a consent, another query node) shows up as a
 * version conflict, and the decision is made again on the caught-up state — an edit that
 * expected the old revision then answers `conflict` instead of overwriting.
 */
export class ProfileWriter {
  private readonly states = new Map<string, ProfileState>();
  private readonly locks = new KeyedLock();

  constructor(
    private readonly log: MessageLog,
    private readonly maxStates = 1000,
  ) {}

  /** The profile's state now (caught up with its stream). */
  async state(tenantId: string, profileId: string): Promise<ProfileState> {
    return this.withLock(tenantId, profileId, () => this.catchUp(tenantId, profileId));
  }

  async write<T>(
    tenantId: string,
    profileId: string,
    ctx: AppendContext,
    decide: ProfileDecision<T>,
  ): Promise<ProfileWriteOutcome<T>> {
    const stream = profileStream(tenantId, profileId);
    return this.withLock(tenantId, profileId, async () => {
      for (let attempt = 1; ; attempt++) {
        const state = await this.catchUp(tenantId, profileId);
        const { records: decided, result } = decide(state);
        if (decided.length === 0) return { status: 'appended', result, records: [], state };
        const first = newRecord(stream, decided[0]!, ctx);
        const rest = decided.slice(1).map((r) =>
          newRecord(stream, r, {
            ...ctx,
            idempotencyKey: undefined,
            causationId: first.metadata.recordId,
          }),
        );
        try {
          const appended = await this.log.append(stream, [first, ...rest], {
            expectedVersion: state.version,
          });
          if (appended.status === 'duplicate') {
            return {
              status: 'duplicate',
              existing: appended.existing,
              state: await this.catchUp(tenantId, profileId),
            };
          }
          for (const stored of appended.records) apply(state, stored);
          recordAppended(this.log.name, appended.records);
          return { status: 'appended', result, records: appended.records, state };
        } catch (error) {
          if (error instanceof WrongExpectedVersionError && attempt < MAX_ATTEMPTS) {
            // Our fold may be ahead of a log replaced under us: start it again from 0.
            if (error.actual < state.version) this.states.delete(spaceKey(stream));
            continue;
          }
          throw error;
        }
      }
    });
  }

  private async catchUp(tenantId: string, profileId: string): Promise<ProfileState> {
    const stream = profileStream(tenantId, profileId);
    const key = spaceKey(stream);
    const state = this.states.get(key) ?? initialProfileState(profileId);
    for (;;) {
      const page = await this.log.readSpace(stream, state.version, PAGE);
      for (const stored of page) apply(state, stored);
      if (page.length < PAGE) break;
    }
    this.states.delete(key);
    this.states.set(key, state);
    for (const k of this.states.keys()) {
      if (this.states.size <= this.maxStates) break;
      if (!this.locks.held(k)) this.states.delete(k);
    }
    return state;
  }

  private async withLock<T>(tenantId: string, profileId: string, fn: () => Promise<T>) {
    return this.locks.run(spaceKey(profileStream(tenantId, profileId)), fn);
  }
}

function apply(state: ProfileState, stored: StoredRecord): void {
  const decoded = decodeRecord(stored);
  if (decoded) evolveProfile(state, decoded, stored.spaceVersion);
  else state.version = stored.spaceVersion;
}
