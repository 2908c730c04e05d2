import type { Kysely } from 'kysely';
import {
  emptyProfileValues,
  evolveProfile,
  initialProfileState,
  maintenanceDueAt,
  PROFILE_FIELDS,
  profileLength,
  type DecodedRecord,
  type ProfileRecord,
  type ProfileState,
} from '@stratagate/domain';
import type { ProfileRow, ReadModelTables } from '@stratagate/store';

type Rm = Kysely<ReadModelTables>;
type Meta = DecodedRecord['meta'];

/**
 * MM-PRO: applies a record of a profile stream (ADR 0050). The profile row is the folded state
 * (the same `evolveProfile` the writer folds with), so its fields, revisions and maintenance
 * clock agree with what the deciders see; history and proposals are one row each. Every write
 * is guarded by the record's position, so a batch delivered twice changes nothing.
 */
export async function onProfileRecord(rm: Rm, record: ProfileRecord & { meta: Meta }) {
  const tenantId = record.meta.metadata.tenantId;
  const { profileId } = record.data;
  const key = { tenant_id: tenantId, profile_id: profileId };
  const row = await rm
    .selectFrom('profiles')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('profile_id', '=', profileId)
    .executeTakeFirst();
  if (row && Number(row.applied_position) >= record.meta.position) return;
  const state = row ? stateOf(row) : initialProfileState(profileId);
  evolveProfile(state, record, record.meta.spaceVersion);
  const next = rowOf(state, record, row?.last_maintenance ?? null);
  await rm
    .insertInto('profiles')
    .values({ ...key, ...next } as never)
    .onConflict((oc) => oc.columns(['tenant_id', 'profile_id']).doUpdateSet(next as never))
    .execute();
  await applyRows(rm, tenantId, state, record);
}

async function applyRows(
  rm: Rm,
  tenantId: string,
  state: ProfileState,
  record: ProfileRecord & { meta: Meta },
) {
  const position = record.meta.position;
  switch (record.type) {
    case 'ProfileFieldChanged': {
      const d = record.data;
      await rm
        .insertInto('profile_history')
        .values({
          tenant_id: tenantId,
          profile_id: d.profileId,
          change_id: d.changeId,
          seq: state.revision,
          field: d.field,
          old_value: d.oldValue,
          new_value: d.newValue,
          source: d.source,
          updated_at: d.updatedAt,
          source_message_id: d.sourceMessageId,
          origin_space_id: d.origin?.spaceId ?? null,
          origin_thread_id: d.origin?.threadId ?? null,
          proposal_id: d.proposalId,
          position,
        })
        .onConflict((oc) => oc.doNothing())
        .execute();
      return;
    }
    case 'ProfileChangeProposed': {
      const d = record.data;
      await rm
        .insertInto('profile_proposals')
        .values({
          tenant_id: tenantId,
          profile_id: d.profileId,
          proposal_id: d.proposalId,
          field: d.field,
          value: d.value,
          base_revision: d.baseRevision,
          origin_space_id: d.origin.spaceId,
          origin_thread_id: d.origin.threadId,
          origin_turn_id: d.origin.turnId,
          after_thread_turn: d.origin.afterThreadTurn,
          reason: d.reason,
          proposed_at: d.proposedAt,
          status: 'pending',
          resolution: null,
          answer_message_id: null,
          resolved_at: null,
          position,
          applied_position: position,
        })
        .onConflict((oc) => oc.doNothing())
        .execute();
      return;
    }
    case 'ProfileProposalResolved': {
      const d = record.data;
      if (d.reason === 'erased') {
        // Its conversation was erased (ADR 0046): forgotten, as a replay that reads the
        // proposal as erased never writes it.
        await rm
          .deleteFrom('profile_proposals')
          .where('tenant_id', '=', tenantId)
          .where('profile_id', '=', d.profileId)
          .where('proposal_id', '=', d.proposalId)
          .execute();
        return;
      }
      await rm
        .updateTable('profile_proposals')
        .set({
          status: d.outcome,
          resolution: d.reason,
          answer_message_id: d.answerMessageId,
          resolved_at: d.resolvedAt,
          applied_position: position,
        })
        .where('tenant_id', '=', tenantId)
        .where('profile_id', '=', d.profileId)
        .where('proposal_id', '=', d.proposalId)
        .where('applied_position', '<', position)
        .execute();
      return;
    }
    case 'ProfileCreated':
    case 'ProfileMaintained':
      return;
    default: {
      const never: never = record;
      throw new Error(`unhandled profile record ${(never as ProfileRecord).type}`);
    }
  }
}

function stateOf(row: ProfileRow): ProfileState {
  const state = initialProfileState(row.profile_id);
  state.version = row.stream_version;
  state.created = row.created;
  state.revision = row.revision;
  state.updatedAt = row.updated_at;
  state.values = { ...emptyProfileValues(), ...row.fields };
  state.fieldRevisions = { ...state.fieldRevisions, ...row.field_revisions };
  state.maintenance = {
    firstNonEmptyAt: row.first_non_empty_at,
    lastSuccessAt: row.last_success_at,
    maintainedRevision: row.maintained_revision,
    failures: row.maintenance_failures,
    nextAttemptAt: row.next_attempt_at,
  };
  return state;
}

function rowOf(
  state: ProfileState,
  record: ProfileRecord & { meta: Meta },
  lastMaintenance: Record<string, unknown> | null,
) {
  const m = state.maintenance;
  const values = Object.fromEntries(PROFILE_FIELDS.map((f) => [f, state.values[f]]));
  return {
    created: state.created,
    revision: state.revision,
    fields: JSON.stringify(values),
    field_revisions: JSON.stringify(state.fieldRevisions),
    total_chars: profileLength(state.values),
    updated_at: state.updatedAt,
    first_non_empty_at: m.firstNonEmptyAt,
    last_success_at: m.lastSuccessAt,
    maintained_revision: m.maintainedRevision,
    maintenance_failures: m.failures,
    next_attempt_at: m.nextAttemptAt,
    last_maintenance: JSON.stringify(
      record.type === 'ProfileMaintained'
        ? {
            outcome: record.data.outcome,
            at: record.data.maintainedAt,
            error: record.data.error,
            changeIds: record.data.changeIds,
          }
        : lastMaintenance,
    ),
    maintenance_due_at: maintenanceDueAt(state),
    stream_version: state.version,
    applied_position: record.meta.position,
  };
}
