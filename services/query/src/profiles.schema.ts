import { z } from 'zod';
import {
  describeLimitError,
  fieldLimitError,
  PROFILE_FIELD_LIMITS,
  PROFILE_ID_PATTERN,
  PROFILE_TOTAL_LIMIT,
  ProfileFieldName,
} from '@stratagate/domain';
import {
  Count,
  counter,
  IdParam,
  PageOffset,
  pageLimit,
  requestSchema,
  responseSchema,
} from '@stratagate/http';
import { AGENT_THREAD, SPACE, THREAD } from './api-examples.ts';

export const ProfileIdParam = z
  .string()
  .regex(PROFILE_ID_PATTERN, 'profile id: 1–64 of letters, digits, . _ : -')
  .describe('a profile of your tenant; `default` always exists');

const Source = z.enum(['settings', 'user_explicit', 'agent_tool', 'maintenance']);
const CHANGE_1 = 'pchg_0c9a2f6e4b5d4e7f8a1b2c3d4e5f6a7b';
const CHANGE_2 = 'pchg_7d1e3f5a9b2c4d6e8f0a1b3c5d7e9f2a';
const PROPOSAL = 'prop_4e2d9c7b5a3f4e1d8c6b2a0f9e7d5c3b';
const MSG_ANSWER = 'msg_91b3c5d7e9f14a2b8c6d4e2f0a9b7c5d';

/** A field's value within its own limit (MM-PRO-2): the issue names the field and the limit. */
function withinFieldLimit<T extends { field: z.infer<typeof ProfileFieldName>; value: string }>(
  body: T,
  ctx: z.RefinementCtx,
) {
  const error = fieldLimitError(body.field, body.value.trim());
  if (error) ctx.addIssue({ code: 'custom', path: ['value'], message: describeLimitError(error) });
}

const FieldValue = z
  .string()
  .max(6000)
  .describe('the whole new value (an empty string clears the field)');

export const ProfileEditBody = requestSchema(
  z
    .strictObject({
      field: ProfileFieldName,
      value: FieldValue,
      expectedRevision: z
        .string()
        .max(200)
        .nullable()
        .describe(
          "the field's revision you read (`fields.<field>.revision`; null if it was never set): a newer one answers 409 and writes nothing",
        ),
      expectedValue: z
        .string()
        .max(6000)
        .optional()
        .describe('the value you read; a different current value answers 409 as well'),
      source: z
        .enum(['settings', 'user_explicit'])
        .default('settings')
        .describe(
          '`settings`: edited in a settings screen; `user_explicit`: the user asked for it in a conversation',
        ),
      sourceMessageId: IdParam.optional().describe('the message the user asked in'),
    })
    .superRefine(withinFieldLimit),
  { field: 'preferredLanguage', value: 'Chinese', expectedRevision: null },
  {
    field: 'currentCity',
    value: 'Beijing',
    expectedRevision: CHANGE_1,
    source: 'user_explicit',
    sourceMessageId: MSG_ANSWER,
  },
);
export type ProfileEditBody = z.infer<typeof ProfileEditBody>;

const FieldState = z.object({
  value: z.string(),
  revision: z
    .string()
    .nullable()
    .describe('id of the latest change of this field; null if never set'),
  limit: Count.describe('code points at most'),
  use: z.string().describe('what the field is for'),
});

const ProposalShape = z.object({
  proposalId: z.string(),
  field: ProfileFieldName,
  value: z.string(),
  status: z.enum(['pending', 'applied', 'expired']),
  resolution: z
    .enum(['agreed', 'not_agreed', 'other_edit', 'replaced'])
    .nullable()
    .describe(
      'agreed; not_agreed (the next message did not agree); other_edit or replaced (superseded)',
    ),
  spaceId: z.string(),
  threadId: z.string(),
  afterThreadTurn: Count.describe("the user's first message in a turn after this one decides it"),
  reason: z.string().nullable(),
  proposedAt: z.string(),
  answerMessageId: z.string().nullable(),
  resolvedAt: z.string().nullable(),
});
export type ProposalShape = z.infer<typeof ProposalShape>;

const exampleProposal: ProposalShape = {
  proposalId: PROPOSAL,
  field: 'currentCity',
  value: 'Beijing',
  status: 'pending',
  resolution: null,
  spaceId: SPACE,
  threadId: AGENT_THREAD,
  afterThreadTurn: 4,
  reason: 'The user said they are in Beijing this week.',
  proposedAt: '2026-12-06T09:58:00.000Z',
  answerMessageId: null,
  resolvedAt: null,
};

const emptyField = (field: keyof typeof PROFILE_FIELD_LIMITS, use: string) => ({
  value: '',
  revision: null,
  limit: PROFILE_FIELD_LIMITS[field],
  use,
});

const ProfileShape = z.object({
  profileId: z.string(),
  revision: counter('changes made to the profile so far'),
  fields: z.object(
    Object.fromEntries(Object.keys(PROFILE_FIELD_LIMITS).map((f) => [f, FieldState])) as Record<
      keyof typeof PROFILE_FIELD_LIMITS,
      typeof FieldState
    >,
  ),
  totalChars: Count,
  totalLimit: Count,
  text: z
    .string()
    .describe('the profile as every recall of a bound space shows it; empty when nothing is set'),
  pendingProposals: z.array(ProposalShape),
  maintenance: z.object({
    dueAt: z.string().nullable().describe('when compression is next due; null: not until a change'),
    lastSuccessAt: z.string().nullable(),
    failures: Count,
    nextAttemptAt: z.string().nullable(),
    last: z
      .object({
        outcome: z.enum(['compressed', 'unchanged', 'stale', 'failed']),
        at: z.string(),
        error: z.object({ code: z.string(), message: z.string() }).nullable(),
      })
      .nullable()
      .describe('the last attempt: stale means the profile changed meanwhile, so nothing applied'),
  }),
});
export type ProfileReply = z.infer<typeof ProfileShape>;

export const ProfileReply = responseSchema(
  ProfileShape,
  'The profile now: every field with its revision and limit, the rendered text, proposals awaiting the user.',
  {
    profileId: 'default',
    revision: 2,
    fields: {
      userPreferredName: {
        value: 'Caroline',
        revision: CHANGE_2,
        limit: 100,
        use: 'how to address the user',
      },
      assistantPreferredName: emptyField('assistantPreferredName', "the assistant's name"),
      preferredLanguage: {
        value: 'Chinese',
        revision: CHANGE_1,
        limit: 100,
        use: 'the language of final answers',
      },
      reasoningLanguage: emptyField('reasoningLanguage', 'the language of visible reasoning'),
      defaultLocation: emptyField('defaultLocation', 'the place to use when a task names none'),
      homeCity: emptyField('homeCity', "the user's stable residence"),
      currentCity: emptyField('currentCity', 'where the user is now, maybe for a while'),
      responsePreferences: emptyField('responsePreferences', 'answer style'),
      standingInstructions: emptyField('standingInstructions', 'lasting instructions'),
      userBackground: emptyField('userBackground', 'background'),
      longTermGoals: emptyField('longTermGoals', 'long-term goals'),
      persistentNotes: emptyField('persistentNotes', 'other lasting notes'),
    },
    totalChars: 15,
    totalLimit: PROFILE_TOTAL_LIMIT,
    text: '- Address the user as: Caroline\n- Final answers in: Chinese (the language of the final answer only)',
    pendingProposals: [exampleProposal],
    maintenance: {
      dueAt: null,
      lastSuccessAt: null,
      failures: 0,
      nextAttemptAt: null,
      last: null,
    },
  },
);

export const ProfileEditReply = responseSchema(
  z.object({
    profileId: z.string(),
    field: ProfileFieldName,
    value: z.string().describe('the value now'),
    oldValue: z.string(),
    modified: z.boolean().describe('false: the field already had this value; nothing was written'),
    revision: z.string().nullable().describe("the field's revision now"),
    profileRevision: counter('changes made to the profile so far'),
    expiredProposalIds: z.array(z.string()).describe('pending proposals this edit expired'),
    position: counter('log position of the change', 1).nullable(),
  }),
  'The field as it is now. An edit expires every pending proposal: the user can no longer be agreeing to it as stated.',
  {
    profileId: 'default',
    field: 'preferredLanguage',
    value: 'Chinese',
    oldValue: '',
    modified: true,
    revision: CHANGE_1,
    profileRevision: 1,
    expiredProposalIds: [],
    position: 57,
  },
);
export type ProfileEditReply = z.infer<typeof ProfileEditReply>;

export const ProfileCreateReply = responseSchema(
  z.object({
    profileId: z.string(),
    created: z.boolean().describe('false: the profile existed already; nothing was written'),
  }),
  'The profile exists (created now, or before).',
  { profileId: 'caroline', created: true },
);
export type ProfileCreateReply = z.infer<typeof ProfileCreateReply>;

export const ProfileHistoryQuery = z.strictObject({
  field: ProfileFieldName.optional().describe('only changes of this field'),
  limit: pageLimit(100, 20),
  offset: PageOffset,
});

export const ProfileHistoryReply = responseSchema(
  z.object({
    profileId: z.string(),
    changes: z.array(
      z.object({
        changeId: z.string().describe("the field's revision this change made"),
        revision: counter('the profile revision this change made', 1),
        field: ProfileFieldName,
        oldValue: z.string(),
        newValue: z.string(),
        source: Source,
        updatedAt: z.string(),
        sourceMessageId: z.string().nullable(),
        spaceId: z.string().nullable(),
        threadId: z.string().nullable(),
        proposalId: z.string().nullable().describe('the agreed proposal it applied'),
      }),
    ),
    nextOffset: Count.nullable(),
  }),
  'Every change, newest first: the audit trail of the profile.',
  {
    profileId: 'default',
    changes: [
      {
        changeId: CHANGE_2,
        revision: 2,
        field: 'userPreferredName',
        oldValue: '',
        newValue: 'Caroline',
        source: 'agent_tool',
        updatedAt: '2026-12-06T10:01:00.000Z',
        sourceMessageId: MSG_ANSWER,
        spaceId: SPACE,
        threadId: THREAD,
        proposalId: PROPOSAL,
      },
    ],
    nextOffset: null,
  },
);
export type ProfileHistoryReply = z.infer<typeof ProfileHistoryReply>;

export const ProposalListQuery = z.strictObject({
  status: z.enum(['pending', 'applied', 'expired']).optional(),
  limit: pageLimit(100, 20),
  offset: PageOffset,
});

export const ProposalListReply = responseSchema(
  z.object({
    profileId: z.string(),
    proposals: z.array(ProposalShape),
    nextOffset: Count.nullable(),
  }),
  'Proposals, newest first.',
  { profileId: 'default', proposals: [exampleProposal], nextOffset: null },
);
export type ProposalListReply = z.infer<typeof ProposalListReply>;

export const ProposeBody = requestSchema(
  z
    .strictObject({
      field: ProfileFieldName,
      value: FieldValue,
      turnId: z
        .string()
        .min(1)
        .max(200)
        .optional()
        .describe(
          'the turn you are answering (its `turnId`): the user answers in the turn after it. Without it, the turn in progress, which you post after this call',
        ),
      reason: z.string().max(500).optional().describe('why you propose it, in a sentence'),
    })
    .superRefine(withinFieldLimit),
  {
    field: 'currentCity',
    value: 'Beijing',
    reason: 'The user said they are in Beijing this week.',
  },
);
export type ProposeBody = z.infer<typeof ProposeBody>;

export const ProposeReply = responseSchema(
  z.object({
    profileId: z.string().describe('the profile this space is bound to'),
    status: z
      .enum(['proposed', 'unchanged'])
      .describe('unchanged: the field already has this value; nothing was proposed'),
    proposal: ProposalShape.nullable(),
    note: z.string().describe('what the agent should do now'),
    position: counter('log position of the proposal', 1).nullable(),
  }),
  'The pending proposal. Ask the user to agree in their next message; their next message decides it.',
  {
    profileId: 'default',
    status: 'proposed',
    proposal: exampleProposal,
    note: 'Say to the user, in your answer, that you would set currentCity to "Beijing" and ask them to agree. Only an explicit yes as their next message applies it.',
    position: 61,
  },
);
export type ProposeReply = z.infer<typeof ProposeReply>;
