import { z } from 'zod';
import { REMEMBER_CATEGORIES } from '@stratagate/domain';
import { IdParam, requestSchema, responseSchema } from '@stratagate/http';
import { AGENT_THREAD, EVT_PNPM } from './api-examples.ts';

export const RememberBody = requestSchema(
  z.object({
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
    requestId: IdParam.optional().describe(
      'Stable per agent call and reused on retry: the same request answers the same, once',
    ),
  }),
  {
    content: 'Caroline prefers pnpm over npm for every project.',
    category: 'preference',
    requestId: `${AGENT_THREAD}:tool:call_2`,
  },
  { content: 'The Atlas release is planned for 2023-06-01.', category: 'decision', topK: 8 },
);
export type RememberBody = z.infer<typeof RememberBody>;

export const RememberReply = responseSchema(
  z.object({
    outcome: z
      .enum(['ADDED', 'REINFORCED', 'CONFLICT_MARKED', 'IGNORED', 'MERGED', 'SUPERSEDED'])
      .describe('what the containment gate (and the optional model decider) decided'),
    gate: z
      .string()
      .describe(
        'why: clear-new, exact-duplicate, containment-duplicate, heuristic-conflict, decider, …',
      ),
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
    position: z.number().describe('global log position of the decision record'),
  }),
  'The decision as recorded (the same answer again for a retried `requestId`).',
  {
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
);
