import { z } from 'zod';
import { Count, IdParam, requestSchema, responseSchema, Truncated } from '@stratagate/http';
import {
  AGENT_THREAD,
  EDGE_CAROLINE_ATLAS,
  EVT_CI,
  EVT_PNPM,
  exampleSourceMessage,
  MSG_CI,
  MSG_PNPM,
  NODE_ATLAS,
  NODE_CAROLINE,
  NODE_CI,
  SPACE,
  THREAD,
  TITLE_CI,
  TITLE_PNPM,
} from './api-examples.ts';
import { SourceMessageSchema } from './memory-events.schema.ts';

export const NodeType = z.enum(['person', 'project', 'organization', 'tool', 'place']);
const GraphStatus = z.enum(['active', 'superseded', 'disputed', 'archived']);
export const FactValue = z.union([z.string(), z.array(z.string())]);

const GraphFactSchema = z.object({
  id: z.string(),
  nodeId: z.string(),
  key: z.string().describe('e.g. `state`, `location`, `version`'),
  value: FactValue,
  status: GraphStatus,
  confidence: z.number(),
  sourceEventIds: z.array(z.string()),
  validFrom: z.string().nullable(),
  validTo: z.string().nullable(),
  citedEventIds: z.array(z.string()).describe('the visible (not forgotten) source events'),
});

const GraphEdgeSchema = z.object({
  id: z.string(),
  fromId: z.string(),
  toId: z.string(),
  relation: z.string().describe('e.g. `uses`, `works_on`, `participates_in`'),
  status: GraphStatus,
  confidence: z.number(),
  sourceEventIds: z.array(z.string()),
  validFrom: z.string().nullable(),
  validTo: z.string().nullable(),
  citedEventIds: z.array(z.string()).describe('the visible (not forgotten) source events'),
});

const Provenance = z.object({
  eventId: z.string(),
  title: z.string(),
  sourceMessageIds: z.array(z.string()),
});

/** The effective view of a node (MM-GRF-8): what a reader may see once event statuses apply. */
const GraphNodeView = z.object({
  id: z.string(),
  name: z.string(),
  type: NodeType,
  aliases: z.array(z.string()),
  tags: z.array(z.string()),
  status: GraphStatus.describe('listed nodes are active or disputed'),
  currentState: z.string().describe('current facts as `key: value` lines'),
  currentFacts: z.array(GraphFactSchema.extend({ disputed: z.boolean() })),
  historicalFacts: z.array(GraphFactSchema),
  currentEdges: z.array(GraphEdgeSchema),
  historicalEdges: z.array(GraphEdgeSchema),
  provenanceEventIds: z
    .array(z.string())
    .describe('≤ 6 cited events, most recent source time first'),
  provenance: z.array(Provenance),
  nodeNames: z.record(z.string(), z.string()).describe('names of every edge endpoint, by node id'),
});

const edgeExample = {
  id: EDGE_CAROLINE_ATLAS,
  fromId: NODE_CAROLINE,
  toId: NODE_ATLAS,
  relation: 'participates_in',
  status: 'active' as const,
  confidence: 0.8,
  sourceEventIds: [EVT_PNPM, EVT_CI],
  validFrom: '2023-05-08T05:52:00.000Z',
  validTo: null,
  citedEventIds: [EVT_PNPM, EVT_CI],
};
const nodeNames = { [NODE_CAROLINE]: 'Caroline', [NODE_ATLAS]: 'Atlas' };

const atlasExample = {
  id: NODE_ATLAS,
  name: 'Atlas',
  type: 'project' as const,
  aliases: ['Project Atlas'],
  tags: [],
  status: 'active' as const,
  currentState: 'package_manager: pnpm',
  currentFacts: [
    {
      id: 'gfact_2c1f9e0d8b7a4f63a5e4d3c2b1a09f8e',
      nodeId: NODE_ATLAS,
      key: 'package_manager',
      value: 'pnpm',
      status: 'active' as const,
      confidence: 0.8,
      sourceEventIds: [EVT_PNPM],
      validFrom: '2023-05-01',
      validTo: null,
      citedEventIds: [EVT_PNPM],
      disputed: false,
    },
  ],
  historicalFacts: [
    {
      id: 'gfact_7d6c5b4a39284f17b6a5c4d3e2f1a0b9',
      nodeId: NODE_ATLAS,
      key: 'package_manager',
      value: 'npm',
      status: 'superseded' as const,
      confidence: 0.8,
      sourceEventIds: [EVT_PNPM],
      validFrom: null,
      validTo: '2023-05-01',
      citedEventIds: [EVT_PNPM],
    },
  ],
  currentEdges: [edgeExample],
  historicalEdges: [],
  provenanceEventIds: [EVT_CI, EVT_PNPM],
  provenance: [
    { eventId: EVT_CI, title: TITLE_CI, sourceMessageIds: [MSG_CI] },
    { eventId: EVT_PNPM, title: TITLE_PNPM, sourceMessageIds: [MSG_PNPM] },
  ],
  nodeNames,
};

export const GraphNodeListReply = responseSchema(
  z.object({
    spaceId: z.string(),
    nodes: z.array(GraphNodeView),
    nextOffset: Count.nullable().describe('the `offset` of the next page, if any'),
    truncated: Truncated,
  }),
  'Visible nodes (active or disputed) in creation order, with their effective state.',
  {
    spaceId: SPACE,
    nodes: [
      atlasExample,
      {
        id: NODE_CI,
        name: 'CI',
        type: 'tool',
        aliases: [],
        tags: [],
        status: 'active',
        currentState: 'state: pending verification',
        currentFacts: [
          {
            id: 'gfact_65645f335e064c45ba0a79a3abe329ee',
            nodeId: NODE_CI,
            key: 'state',
            value: 'pending verification',
            status: 'active',
            confidence: 0.8,
            sourceEventIds: [EVT_CI],
            validFrom: '2023-05-08T05:52:00.000Z',
            validTo: null,
            citedEventIds: [EVT_CI],
            disputed: false,
          },
        ],
        historicalFacts: [],
        currentEdges: [],
        historicalEdges: [],
        provenanceEventIds: [EVT_CI],
        provenance: [{ eventId: EVT_CI, title: TITLE_CI, sourceMessageIds: [MSG_CI] }],
        nodeNames,
      },
    ],
    nextOffset: null,
    truncated: false,
  },
);

const GRAPH_NODE_DETAIL_EXAMPLE = {
  ...atlasExample,
  provenance: [
    {
      eventId: EVT_CI,
      title: TITLE_CI,
      sourceMessageIds: [MSG_CI],
      sources: [
        {
          messageId: MSG_CI,
          role: 'user' as const,
          name: 'Caroline',
          content: 'The Atlas CI still has to be verified after the pnpm migration.',
          occurredAt: '2023-05-08T13:52:00+08:00',
          threadId: THREAD,
          threadTurn: 2,
        },
      ],
    },
    {
      eventId: EVT_PNPM,
      title: TITLE_PNPM,
      sourceMessageIds: [MSG_PNPM],
      sources: [exampleSourceMessage],
    },
  ],
};

export const GraphNodeDetailReply = responseSchema(
  GraphNodeView.extend({
    provenance: z
      .array(Provenance.extend({ sources: z.array(SourceMessageSchema) }))
      .describe('each cited event with the messages it came from'),
  }),
  'The node with current and historical facts and edges, and provenance down to the messages.',
  GRAPH_NODE_DETAIL_EXAMPLE,
);

export type GraphNodeListReply = z.infer<typeof GraphNodeListReply>;
export type GraphNodeDetailReply = z.infer<typeof GraphNodeDetailReply>;

export const GraphNodeExpandBody = requestSchema(
  z.strictObject({
    threadId: IdParam.describe('the session whose evidence batch this expansion opens'),
  }),
  { threadId: AGENT_THREAD },
);

export const GraphNodeExpandReply = responseSchema(
  z.object({
    batchId: z.string().describe('the evidence batch this expansion opened'),
    evidenceRefs: z.array(z.string()).describe('`graph-node:<id>:expanded`'),
    node: GraphNodeDetailReply,
  }),
  'The node; an evidence batch holding `graph-node:<id>:expanded` is open.',
  {
    batchId: 'batch_5',
    evidenceRefs: [`graph-node:${NODE_ATLAS}:expanded`],
    node: GRAPH_NODE_DETAIL_EXAMPLE,
  },
);
export type GraphNodeExpandReply = z.infer<typeof GraphNodeExpandReply>;
