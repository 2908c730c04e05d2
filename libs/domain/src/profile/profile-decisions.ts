import type { RecordOf } from '../records/record-types.ts';
import type { ProfileSource } from '../records/profile-records.ts';
import { isExplicitAgreement } from './consent.ts';
import {
  checkProfileLimits,
  normaliseProfileValue,
  type ProfileField,
  type ProfileLimitError,
} from './profile-fields.ts';
import { profileExists, type PendingProposal, type ProfileState } from './profile-state.ts';

type Changed = RecordOf<'ProfileFieldChanged'>;
type Proposed = RecordOf<'ProfileChangeProposed'>;
type Resolved = RecordOf<'ProfileProposalResolved'>;

export type ProfileRefusal =
  | { ok: false; code: 'profile_not_found' }
  | ({ ok: false } & ProfileLimitError)
  | { ok: false; code: 'conflict'; field: ProfileField; revision: string | null; value: string };

export interface ConversationOrigin {
  spaceId: string;
  threadId: string;
}

/** Creating a profile twice is a no-op; `default` never needs it. */
export function decideCreateProfile(state: ProfileState): RecordOf<'ProfileCreated'>[] {
  if (profileExists(state)) return [];
  return [{ type: 'ProfileCreated', data: { profileId: state.profileId } }];
}

/** Pending proposals an edit or a new proposal expires (MM-PRO-4: "other edits do not"). */
export function expirePending(
  state: ProfileState,
  reason: 'other_edit' | 'replaced' | 'erased',
  at: string,
  only?: (p: PendingProposal) => boolean,
): Resolved[] {
  return [...state.pending.values()]
    .filter((p) => !only || only(p))
    .map((p) => ({
      type: 'ProfileProposalResolved',
      data: {
        profileId: state.profileId,
        proposalId: p.proposalId,
        outcome: 'expired',
        reason,
        answerMessageId: null,
        resolvedAt: at,
      },
    }));
}

export interface ProfileEditCommand {
  field: ProfileField;
  value: string;
  /**
   * MM-PRO-5: the field's revision the caller saw (null: never set). Undefined only where the
   * caller decides on the state itself (an explicit request the agent relays, remember).
   */
  expectedRevision?: string | null | undefined;
  /** The value the caller saw; a different current value is a conflict too. */
  expectedValue?: string | undefined;
  source: Exclude<ProfileSource, 'maintenance'>;
  sourceMessageId: string | null;
  origin: ConversationOrigin | null;
  changeId: string;
  at: string;
}

export type ProfileEditDecision =
  { ok: true; modified: boolean; value: string; records: (Changed | Resolved)[] } | ProfileRefusal;

/**
 * MM-PRO-4/5: one field per edit. A stale expectation is a conflict and writes nothing; an
 * unchanged value writes nothing either. A real change is one audit record and expires every
 * pending proposal, which the user can no longer be agreeing to as stated.
 */
export function decideProfileEdit(
  state: ProfileState,
  cmd: ProfileEditCommand,
): ProfileEditDecision {
  if (!profileExists(state)) return { ok: false, code: 'profile_not_found' };
  const current = state.values[cmd.field];
  const revision = state.fieldRevisions[cmd.field];
  const stale =
    (cmd.expectedRevision !== undefined && cmd.expectedRevision !== revision) ||
    (cmd.expectedValue !== undefined && normaliseProfileValue(cmd.expectedValue) !== current);
  if (stale) return { ok: false, code: 'conflict', field: cmd.field, revision, value: current };
  const value = normaliseProfileValue(cmd.value);
  const limit = checkProfileLimits(state.values, cmd.field, value);
  if (limit) return { ok: false, ...limit };
  if (value === current) return { ok: true, modified: false, value, records: [] };
  const changed: Changed = {
    type: 'ProfileFieldChanged',
    data: {
      profileId: state.profileId,
      changeId: cmd.changeId,
      field: cmd.field,
      oldValue: current,
      newValue: value,
      source: cmd.source,
      updatedAt: cmd.at,
      sourceMessageId: cmd.sourceMessageId,
      origin: cmd.origin,
      proposalId: null,
    },
  };
  return {
    ok: true,
    modified: true,
    value,
    records: [changed, ...expirePending(state, 'other_edit', cmd.at)],
  };
}

export interface ProposeChangeCommand {
  proposalId: string;
  field: ProfileField;
  value: string;
  origin: ConversationOrigin & { turnId: string | null; afterThreadTurn: number };
  reason: string | null;
  at: string;
}

export type ProposalDecision =
  | {
      ok: true;
      status: 'proposed' | 'unchanged';
      proposal: PendingProposal | null;
      records: (Proposed | Resolved)[];
    }
  | ProfileRefusal;

/**
 * MM-PRO-4: an agent-inferred change is stated first. A value the field already has proposes
 * nothing; the same proposal again (same field, value and answering turn) is the pending one.
 * A new proposal replaces what is pending for the same turn of the same thread, so one "yes"
 * applies one change; proposals made in earlier turns are left to their own answers, which may
 * already have been given and not yet read.
 */
export function decideProposal(state: ProfileState, cmd: ProposeChangeCommand): ProposalDecision {
  if (!profileExists(state)) return { ok: false, code: 'profile_not_found' };
  const value = normaliseProfileValue(cmd.value);
  const limit = checkProfileLimits(state.values, cmd.field, value);
  if (limit) return { ok: false, ...limit };
  if (value === state.values[cmd.field]) {
    return { ok: true, status: 'unchanged', proposal: null, records: [] };
  }
  const same = [...state.pending.values()].find(
    (p) =>
      p.field === cmd.field &&
      p.value === value &&
      p.origin.spaceId === cmd.origin.spaceId &&
      p.origin.threadId === cmd.origin.threadId &&
      p.origin.afterThreadTurn === cmd.origin.afterThreadTurn,
  );
  if (same) return { ok: true, status: 'proposed', proposal: same, records: [] };
  const proposed: Proposed = {
    type: 'ProfileChangeProposed',
    data: {
      profileId: state.profileId,
      proposalId: cmd.proposalId,
      field: cmd.field,
      value,
      baseRevision: state.fieldRevisions[cmd.field],
      origin: cmd.origin,
      proposedAt: cmd.at,
      reason: cmd.reason,
    },
  };
  return {
    ok: true,
    status: 'proposed',
    proposal: proposed.data,
    // The proposal first: an append is found by its first record (a retried request id).
    records: [
      proposed,
      ...expirePending(
        state,
        'replaced',
        cmd.at,
        (p) =>
          p.origin.spaceId === cmd.origin.spaceId &&
          p.origin.threadId === cmd.origin.threadId &&
          p.origin.afterThreadTurn === cmd.origin.afterThreadTurn,
      ),
    ],
  };
}

export interface ProposalAnswerCommand {
  proposalId: string;
  /** The user's next message in the proposal's thread. */
  answer: { messageId: string; content: string };
  changeId: string;
  at: string;
}

/**
 * MM-PRO-4: the user's next message decides a pending proposal once. Explicit agreement applies
 * exactly the stated change — if the field still has the revision it was proposed on and the
 * limits still hold; anything else expires it. A proposal already resolved decides nothing.
 */
export function decideProposalAnswer(
  state: ProfileState,
  cmd: ProposalAnswerCommand,
): (Changed | Resolved)[] {
  const p = state.pending.get(cmd.proposalId);
  if (!p) return [];
  const resolved = (
    outcome: 'applied' | 'expired',
    reason: Resolved['data']['reason'],
  ): Resolved => ({
    type: 'ProfileProposalResolved',
    data: {
      profileId: state.profileId,
      proposalId: p.proposalId,
      outcome,
      reason,
      answerMessageId: cmd.answer.messageId,
      resolvedAt: cmd.at,
    },
  });
  if (!isExplicitAgreement(cmd.answer.content)) return [resolved('expired', 'not_agreed')];
  const applicable =
    state.fieldRevisions[p.field] === p.baseRevision &&
    checkProfileLimits(state.values, p.field, p.value) === null;
  if (!applicable) return [resolved('expired', 'other_edit')];
  const changed: Changed = {
    type: 'ProfileFieldChanged',
    data: {
      profileId: state.profileId,
      changeId: cmd.changeId,
      field: p.field,
      oldValue: state.values[p.field],
      newValue: p.value,
      source: 'agent_tool',
      updatedAt: cmd.at,
      sourceMessageId: cmd.answer.messageId,
      origin: { spaceId: p.origin.spaceId, threadId: p.origin.threadId },
      proposalId: p.proposalId,
    },
  };
  // Other proposals for this field were stated against the value it had.
  const others = expirePending(
    state,
    'other_edit',
    cmd.at,
    (o) => o.proposalId !== p.proposalId && o.field === p.field,
  );
  return [changed, resolved('applied', 'agreed'), ...others];
}

/**
 * ADR 0046: the pending proposals made in a space, or in one of its threads, that is being erased.
 * They are expired before the conversation's keys go, so no writer's folded state can apply one
 * later; once the keys are gone the proposals themselves read as erased.
 */
export function decideForgetProposals(
  state: ProfileState,
  from: { spaceId: string; threadId: string | null },
  at: string,
): Resolved[] {
  return expirePending(
    state,
    'erased',
    at,
    (p) =>
      p.origin.spaceId === from.spaceId &&
      (from.threadId === null || p.origin.threadId === from.threadId),
  );
}
