import { z } from 'zod';
import { ProfileFieldName } from '../profile/profile-fields.ts';

/*
 * Records of a tenant's resident profile (MM-PRO, ADR 0050). They live in the profile's own
 * stream (`profileStream(tenant, profileId)`), never in a memory space: the profile is read by
 * every space bound to it and written by none of their records.
 */

const ModelOfRecord = z.object({
  provider: z.string().min(1),
  model: z.string().optional(),
  promptVersion: z.string().min(1),
});

/** Where a change or a proposal came from in a conversation. */
const Origin = z.object({ spaceId: z.string().min(1), threadId: z.string().min(1) });

export const ProfileSource = z.enum(['settings', 'user_explicit', 'agent_tool', 'maintenance']);
export type ProfileSource = z.infer<typeof ProfileSource>;

/** A profile other than `default` exists once created. */
export const ProfileCreated = z.object({
  type: z.literal('ProfileCreated'),
  data: z.object({ profileId: z.string().min(1) }),
});

/**
 * MM-PRO-5: one field changed. `changeId` is the field's new revision; the record is its audit
 * row (field, old, new, source, time, source message).
 */
export const ProfileFieldChanged = z.object({
  type: z.literal('ProfileFieldChanged'),
  data: z.object({
    profileId: z.string().min(1),
    changeId: z.string().min(1),
    field: ProfileFieldName,
    oldValue: z.string(),
    newValue: z.string(),
    source: ProfileSource,
    updatedAt: z.string().min(1),
    sourceMessageId: z.string().nullable(),
    origin: Origin.nullable(),
    /** The agreed proposal this change applies (MM-PRO-4), if any. */
    proposalId: z.string().nullable(),
  }),
});

/**
 * MM-PRO-4: an agent inferred a change and stated it; the user's next message in the thread
 * (the first user message of a turn after `afterThreadTurn`) decides it.
 */
export const ProfileChangeProposed = z.object({
  type: z.literal('ProfileChangeProposed'),
  data: z.object({
    profileId: z.string().min(1),
    proposalId: z.string().min(1),
    field: ProfileFieldName,
    value: z.string(),
    /** The field's revision when proposed: the change applies only onto it. */
    baseRevision: z.string().nullable(),
    origin: Origin.extend({
      turnId: z.string().nullable(),
      afterThreadTurn: z.number().int().nonnegative(),
    }),
    proposedAt: z.string().min(1),
    reason: z.string().max(500).nullable(),
  }),
});

export const ProposalOutcome = z.enum(['applied', 'expired']);
/**
 * agreed: applied; not_agreed: the next message did not agree; other_edit / replaced: superseded;
 * erased: the conversation it was made in was erased (ADR 0046), and the proposal is forgotten.
 */
export const ProposalReason = z.enum(['agreed', 'not_agreed', 'other_edit', 'replaced', 'erased']);

export const ProfileProposalResolved = z.object({
  type: z.literal('ProfileProposalResolved'),
  data: z.object({
    profileId: z.string().min(1),
    proposalId: z.string().min(1),
    outcome: ProposalOutcome,
    reason: ProposalReason,
    /** The user message that decided it (agreed, not_agreed). */
    answerMessageId: z.string().nullable(),
    resolvedAt: z.string().min(1),
  }),
});

/**
 * MM-PRO-6: one maintenance attempt as recorded. `compressed` comes with the ProfileFieldChanged
 * records it applied (same append); `stale` means the profile changed while the model ran, so
 * nothing applied; `failed` carries the error and when to try again.
 */
export const ProfileMaintained = z.object({
  type: z.literal('ProfileMaintained'),
  data: z.object({
    profileId: z.string().min(1),
    outcome: z.enum(['compressed', 'unchanged', 'stale', 'failed']),
    /** The profile revision the model read. */
    basedOnRevision: z.number().int().nonnegative(),
    proposed: z.array(z.object({ field: ProfileFieldName, value: z.string() })),
    changeIds: z.array(z.string()),
    error: z.object({ code: z.string(), message: z.string().max(2000) }).nullable(),
    nextAttemptAt: z.string().nullable(),
    maintainedAt: z.string().min(1),
    model: ModelOfRecord.nullable(),
  }),
});

export const PROFILE_RECORD_TYPES = [
  'ProfileCreated',
  'ProfileFieldChanged',
  'ProfileChangeProposed',
  'ProfileProposalResolved',
  'ProfileMaintained',
] as const;
