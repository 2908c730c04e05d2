import { z } from 'zod';

/** Zod mirror of the graph operations (libs/domain/src/graph/graph-types.ts), as recorded. */
const Status = z.enum(['active', 'superseded', 'disputed', 'archived']);
const Ids = z.array(z.string());

export const GraphNodeSchema = z.object({
  id: z.string(),
  name: z.string(),
  type: z.enum(['person', 'project', 'organization', 'tool', 'place']),
  aliases: z.array(z.object({ value: z.string(), sourceEventIds: Ids, visible: z.boolean() })),
  tags: z.array(z.object({ value: z.string(), sourceEventIds: Ids })),
  status: Status,
  confidence: z.number(),
  sourceEventIds: Ids,
  nameSourceEventIds: Ids,
});

export const GraphFactSchema = z.object({
  id: z.string(),
  nodeId: z.string(),
  key: z.string(),
  value: z.union([z.string(), z.array(z.string())]),
  status: Status,
  confidence: z.number(),
  sourceEventIds: Ids,
  validFrom: z.string().nullable(),
  validTo: z.string().nullable(),
});

export const GraphEdgeSchema = z.object({
  id: z.string(),
  fromId: z.string(),
  toId: z.string(),
  relation: z.string(),
  status: Status,
  confidence: z.number(),
  sourceEventIds: Ids,
  validFrom: z.string().nullable(),
  validTo: z.string().nullable(),
});

export const GraphOperationSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('node.create'), node: GraphNodeSchema }),
  z.object({
    op: z.literal('node.update'),
    nodeId: z.string(),
    addAliases: GraphNodeSchema.shape.aliases,
    addTags: GraphNodeSchema.shape.tags,
    addSourceEventIds: Ids,
  }),
  z.object({ op: z.literal('fact.add'), fact: GraphFactSchema }),
  z.object({
    op: z.literal('fact.supersede'),
    factId: z.string(),
    validTo: z.string().nullable(),
    supersededBy: z.string(),
  }),
  z.object({ op: z.literal('fact.dispute'), factId: z.string() }),
  z.object({ op: z.literal('edge.add'), edge: GraphEdgeSchema }),
  z.object({
    op: z.literal('edge.supersede'),
    edgeId: z.string(),
    validTo: z.string().nullable(),
    supersededBy: z.string(),
  }),
]);
