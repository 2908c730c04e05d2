import { randomUUID } from 'node:crypto';
import {
  decideCreateProfile,
  decideProfileEdit,
  describeLimitError,
  emptyProfileValues,
  PROFILE_FIELD_LIMITS,
  PROFILE_FIELD_USES,
  PROFILE_FIELDS,
  PROFILE_TOTAL_LIMIT,
  profileStream,
  renderProfile,
  type MemoryRecord,
  type ProfileRefusal,
  type ProfileState,
  type ProfileValues,
  type StoredRecord,
} from '@stratagate/domain';
import { AppError, conflict } from '@stratagate/http';
import type { ProfileProposalRow, ProfileRow, ProfileScope } from '@stratagate/store';
import { readModel, type QueryContext } from './context.ts';
import { awaitProjection } from './gate.ts';
import { getProfileRow, profileHistory, profileProposals } from './read-model/profiles.queries.ts';
import type {
  ProfileCreateReply,
  ProfileEditBody,
  ProfileEditReply,
  ProfileHistoryReply,
  ProfileReply,
  ProposalListReply,
  ProposalShape,
} from './profiles.schema.ts';

export const newProfileId = (prefix: string) => `${prefix}_${randomUUID().replace(/-/g, '')}`;

/** A refusal of a profile decider as the error the API answers with. */
export function profileError(profile: ProfileScope, refusal: ProfileRefusal): AppError {
  switch (refusal.code) {
    case 'profile_not_found':
      return new AppError(
        404,
        'profile_not_found',
        `profile '${profile.profileId}' does not exist; create it with PUT /v1/profiles/${profile.profileId}`,
      );
    case 'conflict':
      return conflict(
        'conflict',
        `${refusal.field} changed since you read it; read the profile again and retry`,
        { conflict: true, field: refusal.field, revision: refusal.revision, value: refusal.value },
      );
    case 'field_too_long':
    case 'profile_too_long':
      return new AppError(400, refusal.code, describeLimitError(refusal), {
        field: refusal.field,
        limit: refusal.limit,
        length: refusal.length,
      });
    default: {
      const never: never = refusal;
      return never;
    }
  }
}

type Refusable = { ok: true; records: MemoryRecord[] } | ProfileRefusal;

/** The append's idempotency key was recorded before: `existing` is what it wrote then. */
export class DuplicateProfileRequest extends Error {
  constructor(readonly existing: StoredRecord) {
    super('this request was recorded before');
  }
}

/**
 * Decides on the profile's current state under its stream's lock and appends what the decision
 * says; a refusal is the API's error and writes nothing. Answers once the change is readable.
 */
export async function writeProfileDecision<D extends Refusable>(
  ctx: QueryContext,
  profile: ProfileScope,
  append: { threadId?: string | undefined; idempotencyKey?: string | undefined },
  decide: (state: ProfileState, at: string) => D,
) {
  const at = ctx.now().toISOString();
  const outcome = await ctx.profiles.write(
    profile.tenantId,
    profile.profileId,
    { occurredAt: at, ...append },
    (state) => {
      const decision = decide(state, at);
      return { records: decision.ok ? decision.records : [], result: decision };
    },
  );
  if (outcome.status === 'duplicate') throw new DuplicateProfileRequest(outcome.existing);
  const decision = outcome.result;
  if (!decision.ok) throw profileError(profile, decision as ProfileRefusal);
  const last = outcome.records.at(-1);
  if (last) await awaitProjection(ctx, streamOf(profile), last.position);
  return {
    decision: decision as Extract<D, { ok: true }>,
    records: outcome.records,
    state: outcome.state,
  };
}

/** The profile's values as the read model holds them (a profile never written is empty). */
export function profileValues(row: ProfileRow | undefined): ProfileValues {
  return { ...emptyProfileValues(), ...(row?.fields ?? {}) };
}

/** The profile, or 404 when it is neither `default` nor created. */
export async function getProfile(ctx: QueryContext, profile: ProfileScope): Promise<ProfileReply> {
  const db = readModel(ctx);
  const row = await getProfileRow(db, profile);
  if (!row?.created && profile.profileId !== 'default') {
    throw profileError(profile, { ok: false, code: 'profile_not_found' });
  }
  const values = profileValues(row);
  const pending = await profileProposals(db, profile, { status: 'pending', limit: 20, offset: 0 });
  return {
    profileId: profile.profileId,
    revision: row?.revision ?? 0,
    fields: Object.fromEntries(
      PROFILE_FIELDS.map((f) => [
        f,
        {
          value: values[f],
          revision: row?.field_revisions[f] ?? null,
          limit: PROFILE_FIELD_LIMITS[f],
          use: PROFILE_FIELD_USES[f],
        },
      ]),
    ) as ProfileReply['fields'],
    totalChars: row?.total_chars ?? 0,
    totalLimit: PROFILE_TOTAL_LIMIT,
    text: renderProfile(values),
    pendingProposals: pending.slice(0, 20).map(proposalOf),
    maintenance: {
      dueAt: row?.maintenance_due_at ?? null,
      lastSuccessAt: row?.last_success_at ?? null,
      failures: row?.maintenance_failures ?? 0,
      nextAttemptAt: row?.next_attempt_at ?? null,
      last: lastAttempt(row?.last_maintenance ?? null),
    },
  };
}

function lastAttempt(last: Record<string, unknown> | null): ProfileReply['maintenance']['last'] {
  if (!last) return null;
  const { outcome, at, error } = last as NonNullable<ProfileReply['maintenance']['last']>;
  return { outcome, at, error };
}

/** Creates a profile of the tenant; creating it again changes nothing. */
export async function createProfile(
  ctx: QueryContext,
  profile: ProfileScope,
): Promise<ProfileCreateReply> {
  const outcome = await ctx.profiles.write(
    profile.tenantId,
    profile.profileId,
    { occurredAt: ctx.now().toISOString() },
    (state) => ({ records: decideCreateProfile(state), result: null }),
  );
  const created = outcome.status === 'appended' && outcome.records.length > 0;
  if (created) await awaitProjection(ctx, streamOf(profile), outcome.records[0]!.position);
  return { profileId: profile.profileId, created };
}

/**
 * MM-PRO-4/5: one field, decided on the profile's current state under its stream's lock; a stale
 * revision or value is `409 conflict` with nothing written. Answers once the change is readable.
 */
export async function editProfileField(
  ctx: QueryContext,
  profile: ProfileScope,
  body: ProfileEditBody,
): Promise<ProfileEditReply> {
  const { decision, records, state } = await writeProfileDecision(ctx, profile, {}, (current, at) =>
    decideProfileEdit(current, {
      field: body.field,
      value: body.value,
      expectedRevision: body.expectedRevision,
      expectedValue: body.expectedValue,
      source: body.source,
      sourceMessageId: body.sourceMessageId ?? null,
      origin: null,
      changeId: newProfileId('pchg'),
      at,
    }),
  );
  const [changed, ...expired] = records;
  return {
    profileId: profile.profileId,
    field: body.field,
    value: decision.value,
    oldValue: changed ? (changed.data as { oldValue: string }).oldValue : decision.value,
    modified: decision.modified,
    revision: state.fieldRevisions[body.field],
    profileRevision: state.revision,
    expiredProposalIds: expired.map((r) => (r.data as { proposalId: string }).proposalId),
    position: changed?.position ?? null,
  };
}

/** The profile's changes, newest first (MM-PRO-5 audit rows). */
export async function listProfileHistory(
  ctx: QueryContext,
  profile: ProfileScope,
  page: { field?: (typeof PROFILE_FIELDS)[number] | undefined; limit: number; offset: number },
): Promise<ProfileHistoryReply> {
  const db = readModel(ctx);
  await requireProfile(ctx, profile);
  const rows = await profileHistory(db, profile, page);
  return {
    profileId: profile.profileId,
    changes: rows.slice(0, page.limit).map((h) => ({
      changeId: h.change_id,
      revision: h.seq,
      field: h.field as (typeof PROFILE_FIELDS)[number],
      oldValue: h.old_value,
      newValue: h.new_value,
      source: h.source,
      updatedAt: h.updated_at,
      sourceMessageId: h.source_message_id,
      spaceId: h.origin_space_id,
      threadId: h.origin_thread_id,
      proposalId: h.proposal_id,
    })),
    nextOffset: rows.length > page.limit ? page.offset + page.limit : null,
  };
}

export async function listProfileProposals(
  ctx: QueryContext,
  profile: ProfileScope,
  page: { status?: 'pending' | 'applied' | 'expired' | undefined; limit: number; offset: number },
): Promise<ProposalListReply> {
  await requireProfile(ctx, profile);
  const rows = await profileProposals(readModel(ctx), profile, page);
  return {
    profileId: profile.profileId,
    proposals: rows.slice(0, page.limit).map(proposalOf),
    nextOffset: rows.length > page.limit ? page.offset + page.limit : null,
  };
}

async function requireProfile(ctx: QueryContext, profile: ProfileScope): Promise<void> {
  if (profile.profileId === 'default') return;
  const row = await getProfileRow(readModel(ctx), profile);
  if (!row?.created) throw profileError(profile, { ok: false, code: 'profile_not_found' });
}

export function proposalOf(p: ProfileProposalRow): ProposalShape {
  return {
    proposalId: p.proposal_id,
    field: p.field as ProposalShape['field'],
    value: p.value,
    status: p.status,
    resolution: p.resolution as ProposalShape['resolution'],
    spaceId: p.origin_space_id,
    threadId: p.origin_thread_id,
    afterThreadTurn: p.after_thread_turn,
    reason: p.reason,
    proposedAt: p.proposed_at,
    answerMessageId: p.answer_message_id,
    resolvedAt: p.resolved_at,
  };
}

/** The log stream of a profile, as projection waits name it. */
export function streamOf(profile: ProfileScope) {
  return profileStream(profile.tenantId, profile.profileId);
}
