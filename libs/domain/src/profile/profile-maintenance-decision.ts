import type { RecordOf } from '../records/record-types.ts';
import type { ProfileField } from './profile-fields.ts';
import { expirePending } from './profile-decisions.ts';
import { checkCompression, maintenanceRetryAt } from './profile-maintenance.ts';
import type { ProfileState } from './profile-state.ts';

type Maintained = RecordOf<'ProfileMaintained'>;
type MaintenanceRecords = (
  RecordOf<'ProfileFieldChanged'> | RecordOf<'ProfileProposalResolved'> | Maintained
)[];

export interface MaintenanceCommand {
  /** The profile revision the model read (MM-GEN-9: claim, call, then commit). */
  basedOnRevision: number;
  result:
    | {
        ok: true;
        fields: { field: ProfileField; value: string }[];
        model: Maintained['data']['model'];
      }
    | { ok: false; error: { code: string; message: string }; model: Maintained['data']['model'] };
  newChangeId: () => string;
  at: string;
  atMs: number;
}

/**
 * MM-PRO-6 at commit: a failure is recorded with its retry time; a result the profile moved on
 * from is recorded as stale and applies nothing; a result that breaks the rules (a short field,
 * growth, new content) is a failure; otherwise every changed field is one `maintenance` change,
 * in the same append as the attempt's record. Pending proposals for a compressed field expire:
 * they were stated against the old text.
 */
export function decideProfileMaintenance(
  state: ProfileState,
  cmd: MaintenanceCommand,
): MaintenanceRecords {
  const base = {
    profileId: state.profileId,
    basedOnRevision: cmd.basedOnRevision,
    maintainedAt: cmd.at,
    model: cmd.result.model,
  };
  const failed = (error: { code: string; message: string }): Maintained => ({
    type: 'ProfileMaintained',
    data: {
      ...base,
      outcome: 'failed',
      proposed: cmd.result.ok ? cmd.result.fields : [],
      changeIds: [],
      error: { code: error.code, message: error.message.slice(0, 2000) },
      nextAttemptAt: maintenanceRetryAt(state.maintenance.failures + 1, cmd.atMs),
    },
  });
  if (!cmd.result.ok) return [failed(cmd.result.error)];
  const proposed = cmd.result.fields;
  const done = (
    outcome: 'compressed' | 'unchanged' | 'stale',
    changeIds: string[],
  ): Maintained => ({
    type: 'ProfileMaintained',
    data: { ...base, outcome, proposed, changeIds, error: null, nextAttemptAt: null },
  });
  if (state.revision !== cmd.basedOnRevision) return [done('stale', [])];
  const check = checkCompression(state.values, proposed);
  if (!check.ok) return [failed({ code: 'invalid_output', message: check.error })];
  if (check.changed.length === 0) return [done('unchanged', [])];
  const changes = check.changed.map(({ field, value }) => ({
    type: 'ProfileFieldChanged' as const,
    data: {
      profileId: state.profileId,
      changeId: cmd.newChangeId(),
      field,
      oldValue: state.values[field],
      newValue: value,
      source: 'maintenance' as const,
      updatedAt: cmd.at,
      sourceMessageId: null,
      origin: null,
      proposalId: null,
    },
  }));
  const fields = new Set(check.changed.map((c) => c.field));
  return [
    ...changes,
    ...expirePending(state, 'other_edit', cmd.at, (p) => fields.has(p.field)),
    done(
      'compressed',
      changes.map((c) => c.data.changeId),
    ),
  ];
}
