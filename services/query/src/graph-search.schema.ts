import { z } from 'zod';
import { DEFAULT_GRAPH_SEARCH_LIMIT, MAX_GRAPH_SEARCH_LIMIT } from '@stratagate/domain';
import { requestSchema, responseSchema, Truncated } from '@stratagate/http';
import {
  EDGE_CAROLINE_ATLAS,
  EVT_CI,
  EVT_PNPM,
  exampleTimeline,
  NODE_ATLAS,
  NODE_CAROLINE,
} from './api-examples.ts';
import { FactValue, NodeType } from './graph.schema.ts';
import { GRAPH_SCORE_MEANING } from './graph-search.ts';

export const GraphSearchBody = requestSchema(
  z.strictObject({
    query: z
      .string()
      .min(1)
      .max(2000)
      .describe(
        'words to find in node names, aliases, tags, types, fact values and connected node names; a word equal to a fact key (e.g. "location") restricts fact matching to that key',
      ),
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_GRAPH_SEARCH_LIMIT)
      .default(DEFAULT_GRAPH_SEARCH_LIMIT)
      .describe('most graph cards to return (1–20, default 8)'),
  }),
  { query: 'Atlas package manager', limit: 4 },
  { query: 'location' },
);

const Timeline = z.enum(['current', 'historical']);

export const GraphTimelineSchema = z
  .array(z.object({ eventId: z.string(), title: z.string(), sourceTime: z.string() }))
  .describe('the cited events in time order, ≤ 6');

export const GraphMatchTypeSchema = z
  .enum(['current', 'historical', 'both'])
  .describe('whether the match is in the current state, only in history, or in both');

/** MM-RET-9 graph card with MM-RET-5 match information. */
export const GraphCardSchema = z.object({
  ref: z.string().describe('evidence ref `graph-node:<id>`, to assess and adopt'),
  id: z.string(),
  name: z.string(),
  type: NodeType,
  aliases: z.array(z.string()),
  tags: z.array(z.string()),
  currentState: z.string().describe('current facts as `key: value; …`, ≤ 500 code points'),
  status: z.enum(['active', 'disputed']),
  rankScore: z.number().describe('orders results only; never a probability of truth'),
  scoreMeaning: z.string(),
  matchType: GraphMatchTypeSchema,
  matchedFields: z.array(
    z.enum([
      'name',
      'alias',
      'tag',
      'type',
      'currentFact',
      'historicalFact',
      'currentEndpoint',
      'historicalEndpoint',
    ]),
  ),
  matchReason: z.string(),
  matchedFacts: z.array(
    z.object({
      id: z.string(),
      key: z.string(),
      value: FactValue,
      timeline: Timeline,
      disputed: z.boolean(),
      validFrom: z.string().nullable(),
      validTo: z.string().nullable(),
      citedEventIds: z.array(z.string()),
    }),
  ),
  matchedEdges: z.array(
    z.object({
      id: z.string(),
      relation: z.string(),
      fromId: z.string(),
      fromName: z.string(),
      toId: z.string(),
      toName: z.string(),
      timeline: Timeline,
      validFrom: z.string().nullable(),
      validTo: z.string().nullable(),
      citedEventIds: z.array(z.string()),
    }),
  ),
  provenanceEventIds: z
    .array(z.string())
    .describe('≤ 6 visible cited events, most recent source time first'),
  timeline: GraphTimelineSchema,
});

export const GraphSearchReply = responseSchema(
  z.object({
    batchId: z.string().describe('the evidence batch this search opened'),
    evidenceRefs: z.array(z.string()).describe('the refs of the hits, in rank order'),
    hits: z.array(GraphCardSchema),
    truncated: Truncated,
  }),
  'Graph cards in rank order; an evidence batch holding their refs is open.',
  {
    batchId: 'batch_3',
    evidenceRefs: [`graph-node:${NODE_ATLAS}`, `graph-node:${NODE_CAROLINE}`],
    hits: [
      {
        ref: `graph-node:${NODE_ATLAS}`,
        id: NODE_ATLAS,
        name: 'Atlas',
        type: 'project',
        aliases: ['Project Atlas'],
        tags: [],
        currentState: 'package_manager: pnpm',
        status: 'active',
        rankScore: 1.2766803883801785,
        scoreMeaning: GRAPH_SCORE_MEANING,
        matchType: 'both',
        matchedFields: ['name', 'currentFact', 'historicalFact'],
        matchReason:
          'matched name "Atlas"; current fact package_manager: pnpm; historical fact package_manager: npm',
        matchedFacts: [
          {
            id: 'gfact_2c1f9e0d8b7a4f63a5e4d3c2b1a09f8e',
            key: 'package_manager',
            value: 'pnpm',
            timeline: 'current',
            disputed: false,
            validFrom: '2023-05-01',
            validTo: null,
            citedEventIds: [EVT_PNPM],
          },
          {
            id: 'gfact_7d6c5b4a39284f17b6a5c4d3e2f1a0b9',
            key: 'package_manager',
            value: 'npm',
            timeline: 'historical',
            disputed: false,
            validFrom: null,
            validTo: '2023-05-01',
            citedEventIds: [EVT_PNPM],
          },
        ],
        matchedEdges: [],
        provenanceEventIds: [EVT_CI, EVT_PNPM],
        timeline: exampleTimeline,
      },
      {
        ref: `graph-node:${NODE_CAROLINE}`,
        id: NODE_CAROLINE,
        name: 'Caroline',
        type: 'person',
        aliases: [],
        tags: [],
        currentState: '',
        status: 'active',
        rankScore: 0.8169062650007463,
        scoreMeaning: GRAPH_SCORE_MEANING,
        matchType: 'current',
        matchedFields: ['currentEndpoint'],
        matchReason: 'matched current edge Caroline –participates_in→ Atlas',
        matchedFacts: [],
        matchedEdges: [
          {
            id: EDGE_CAROLINE_ATLAS,
            relation: 'participates_in',
            fromId: NODE_CAROLINE,
            fromName: 'Caroline',
            toId: NODE_ATLAS,
            toName: 'Atlas',
            timeline: 'current',
            validFrom: '2023-05-08T05:52:00.000Z',
            validTo: null,
            citedEventIds: [EVT_PNPM, EVT_CI],
          },
        ],
        provenanceEventIds: [EVT_CI, EVT_PNPM],
        timeline: exampleTimeline,
      },
    ],
    truncated: false,
  },
);

export type GraphSearchReply = z.infer<typeof GraphSearchReply>;
