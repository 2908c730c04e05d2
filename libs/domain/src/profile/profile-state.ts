import { PROFILE_RECORD_TYPES } from '../records/profile-records.ts';
import type { DataOf, MemoryRecord, RecordOf } from '../records/record-types.ts';
import {
  DEFAULT_PROFILE_ID,
  emptyProfileValues,
  PROFILE_FIELDS,
  type ProfileField,
  type ProfileValues,
} from './profile-fields.ts';

export type PendingProposal = DataOf<'ProfileChangeProposed'>;

export type ProfileRecord = RecordOf<(typeof PROFILE_RECORD_TYPES)[number]>;
const PROFILE_TYPES: ReadonlySet<string> = new Set(PROFILE_RECORD_TYPES);

/** Whether `record` belongs in a profile stream (ADR 0050). */
export function isProfileRecord(record: MemoryRecord): record is ProfileRecord {
  return PROFILE_TYPES.has(record.type);
}

/** MM-PRO-6 bookkeeping, folded from the records (times are the records' own). */
export interface MaintenanceState {
  /** When a field first became non-empty: the 24 h clock starts here until a success. */
  firstNonEmptyAt: string | null;
  lastSuccessAt: string | null;
  /** The profile revision the last success read (size triggers wait for a change after it). */
  maintainedRevision: number;
  /** Failures since the last success or content change. */
  failures: number;
  nextAttemptAt: string | null;
}

/**
 * The write side of one tenant profile: what its deciders need, folded from the profile's
 * stream. `revision` counts field changes (every source); a field's revision is the id of its
 * latest change (MM-PRO-5), null while it was never set.
 */
export interface ProfileState {
  version: number;
  profileId: string;
  created: boolean;
  revision: number;
  /** When the latest field change was made (its `updatedAt`). */
  updatedAt: string | null;
  values: ProfileValues;
  fieldRevisions: Record<ProfileField, string | null>;
  pending: Map<string, PendingProposal>;
  maintenance: MaintenanceState;
}

export function initialProfileState(profileId: string): ProfileState {
  return {
    version: 0,
    profileId,
    created: false,
    revision: 0,
    updatedAt: null,
    values: emptyProfileValues(),
    fieldRevisions: Object.fromEntries(PROFILE_FIELDS.map((f) => [f, null])) as Record<
      ProfileField,
      string | null
    >,
    pending: new Map(),
    maintenance: {
      firstNonEmptyAt: null,
      lastSuccessAt: null,
      maintainedRevision: 0,
      failures: 0,
      nextAttemptAt: null,
    },
  };
}

/** `default` exists always; any other profile once its ProfileCreated is recorded. */
export function profileExists(state: ProfileState): boolean {
  return state.created || state.profileId === DEFAULT_PROFILE_ID;
}

/** Mutates and returns `state` (the caller's cached fold). Other records only bump the version. */
export function evolveProfile(
  state: ProfileState,
  record: MemoryRecord,
  version: number,
): ProfileState {
  state.version = version;
  if (!isProfileRecord(record)) return state;
  switch (record.type) {
    case 'ProfileCreated':
      state.created = true;
      return state;
    case 'ProfileFieldChanged': {
      const d = record.data;
      state.values[d.field] = d.newValue;
      state.fieldRevisions[d.field] = d.changeId;
      state.revision += 1;
      state.updatedAt = d.updatedAt;
      const m = state.maintenance;
      if (m.firstNonEmptyAt === null && d.newValue !== '') m.firstNonEmptyAt = d.updatedAt;
      // MM-PRO-6: failures back off until the content changes.
      if (d.source !== 'maintenance') {
        m.failures = 0;
        m.nextAttemptAt = null;
      }
      return state;
    }
    case 'ProfileChangeProposed':
      state.pending.set(record.data.proposalId, record.data);
      return state;
    case 'ProfileProposalResolved':
      state.pending.delete(record.data.proposalId);
      return state;
    case 'ProfileMaintained': {
      const d = record.data;
      const m = state.maintenance;
      if (d.outcome === 'failed') {
        m.failures += 1;
        m.nextAttemptAt = d.nextAttemptAt;
      } else if (d.outcome !== 'stale') {
        m.failures = 0;
        m.nextAttemptAt = null;
        m.lastSuccessAt = d.maintainedAt;
        m.maintainedRevision = state.revision;
      }
      return state;
    }
    default: {
      const never: never = record;
      return never;
    }
  }
}
