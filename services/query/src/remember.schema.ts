import { z } from 'zod';
import { REMEMBER_CATEGORIES } from '@stratagate/domain';
import { counter, IdParam, idempotencyKey, requestSchema, responseSchema } from '@stratagate/http';
import { AGENT_THREAD, EVT_PNPM } from './api-examples.ts';

export const RememberBody = requestSchema(
  z.strictObject({
    content: z
      .string()
      .max(4000)
      .refine((s) => s.trim().length > 0, 'content must not be blank')
      .describe('One self-contained sentence to remember'),
    category: z.enum(REMEMBER_CATEGORIES).optional(),
    topK: z
      .number()
      .int()
      .min(1)
      .max(20)
      .default(5)
      .describe('Search hits checked for ambiguity (containment ≥ 0.35)'),
    requestId: idempotencyKey(
      IdParam.optional().describe(
        'Stable per agent call and reused on retry: the same request answers the same, once',
      ),
    ),
    userExplicit: z
      .boolean()
      .default(false)
      .describe(
        'the user asked for this in so many words: a lasting setting is then saved to the profile at once instead of proposed',
      ),
  }),
  {
    content: 'Caroline prefers pnpm over npm for every project.',
    category: 'preference',
    requestId: `${AGENT_THREAD}:tool:call_2`,
  },
  { content: 'The Atlas release is planned for 2023-06-01.', category: 'decision', topK: 8 },
  { content: 'From now on answer in Chinese.', userExplicit: true },
);
export type RememberBody = z.infer<typeof RememberBody>;

/** The event fields of a reply that wrote no memory event (routed to the profile, or nowhere). */
export function noEvent() {
  return {
    eventId: null,
    reinforcedEventId: null,
    containment: null,
    matchedEventIds: [] as string[],
    conflictsWithEventIds: [] as string[],
    supersededEventIds: [] as string[],
    decider: null,
    provenance: 'none' as const,
  };
}

const EVENT_ONLY = {
  destination: 'event' as const,
  note: 'Kept as a memory event, recalled when it is relevant.',
  profile: null,
};

export const RememberReply = responseSchema(
  z.object({
    destination: z
      .enum(['event', 'profile', 'conversation'])
      .describe(
        'where the statement went: a fact to a memory event, a lasting personal setting to the profile, a one-off request nowhere (it stays in the conversation)',
      ),
    note: z.string().describe('what happened, and what the agent should do now'),
    outcome: z
      .enum([
        'ADDED',
        'REINFORCED',
        'CONFLICT_MARKED',
        'IGNORED',
        'MERGED',
        'SUPERSEDED',
        'PROFILE_PROPOSED',
        'PROFILE_UPDATED',
        'PROFILE_UNCHANGED',
        'NOT_STORED',
      ])
      .describe(
        'for an event, what the containment gate (and the optional model decider) decided; PROFILE_* for the profile; NOT_STORED for a one-off request',
      ),
    gate: z
      .string()
      .describe(
        'why: clear-new, exact-duplicate, containment-duplicate, heuristic-conflict, decider, …; route:<field> or route:one-off when routed',
      ),
    profile: z
      .object({
        profileId: z.string(),
        field: z.string(),
        value: z.string(),
        status: z.enum(['proposed', 'applied', 'unchanged']),
        proposalId: z.string().nullable().describe("decided by the user's next message"),
        revision: z.string().nullable().describe("the field's revision once applied"),
      })
      .nullable()
      .describe('the profile field the statement went to (destination profile)'),
    eventId: z
      .string()
      .nullable()
      .describe('the event written (ADDED, CONFLICT_MARKED, MERGED, SUPERSEDED)'),
    reinforcedEventId: z.string().nullable().describe('the duplicate reinforced (REINFORCED)'),
    containment: z.number().nullable().describe('0–1 overlap with the reinforced duplicate'),
    matchedEventIds: z
      .array(z.string())
      .describe('ambiguous hits (containment ≥ 0.35) the decision was about'),
    conflictsWithEventIds: z.array(z.string()),
    supersededEventIds: z.array(z.string()),
    decider: z
      .object({
        action: z.string().nullable(),
        confidence: z.number().nullable(),
        downgradedFrom: z.enum(['MERGE', 'SUPERSEDE']).nullable(),
        error: z.string().nullable(),
      })
      .nullable()
      .describe('the model decider’s answer, when the gate was ambiguous and a decider is set'),
    provenance: z
      .enum(['open_tail', 'sealed_block', 'none'])
      .describe("where the event's source messages come from"),
    requestId: z.string(),
    position: counter('log position of the decision record', 1)
      .nullable()
      .describe('null when nothing was written'),
  }),
  'Where the statement went and what was decided (the same answer again for a retried `requestId`).',
  {
    ...EVENT_ONLY,
    outcome: 'ADDED',
    gate: 'clear-new',
    eventId: 'evt_3d9333a1413e42f8a613fd5f5ea96bbb',
    reinforcedEventId: null,
    containment: null,
    matchedEventIds: [],
    conflictsWithEventIds: [],
    supersededEventIds: [],
    decider: null,
    provenance: 'open_tail',
    requestId: `${AGENT_THREAD}:tool:call_2`,
    position: 28,
  },
  {
    ...EVENT_ONLY,
    outcome: 'CONFLICT_MARKED',
    gate: 'heuristic-conflict',
    eventId: 'evt_8a7b6c5d4e3f4a2b9c1d0e8f7a6b5c4d',
    reinforcedEventId: null,
    containment: null,
    matchedEventIds: [EVT_PNPM],
    conflictsWithEventIds: [EVT_PNPM],
    supersededEventIds: [],
    decider: null,
    provenance: 'none',
    requestId: 'remember_e42720fb1cfa43fc9ef43b8fb5a23951',
    position: 31,
  },
  {
    ...EVENT_ONLY,
    outcome: 'REINFORCED',
    gate: 'exact-duplicate',
    eventId: null,
    reinforcedEventId: 'evt_3d9333a1413e42f8a613fd5f5ea96bbb',
    containment: 1,
    matchedEventIds: [],
    conflictsWithEventIds: [],
    supersededEventIds: [],
    decider: null,
    provenance: 'none',
    requestId: 'remember_0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e',
    position: 29,
  },
  {
    destination: 'profile',
    note: 'Say to the user, in your answer, that you would set preferredLanguage to "Chinese" and ask them to agree. Only an explicit yes as their next message applies it; anything else drops it.',
    outcome: 'PROFILE_PROPOSED',
    gate: 'route:preferredLanguage',
    profile: {
      profileId: 'default',
      field: 'preferredLanguage',
      value: 'Chinese',
      status: 'proposed',
      proposalId: 'prop_4e2d9c7b5a3f4e1d8c6b2a0f9e7d5c3b',
      revision: null,
    },
    ...noEvent(),
    requestId: `${AGENT_THREAD}:tool:call_3`,
    position: 33,
  },
  {
    destination: 'conversation',
    note: 'A request for this answer only: follow it in this answer. Nothing was stored; it stays in the conversation.',
    outcome: 'NOT_STORED',
    gate: 'route:one-off',
    profile: null,
    ...noEvent(),
    requestId: `${AGENT_THREAD}:tool:call_4`,
    position: null,
  },
);

export type RememberReply = z.infer<typeof RememberReply>;
