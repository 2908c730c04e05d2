import { z } from 'zod';

/**
 * A graph proposal (MM-GRF-2): what a model, or the offline proposer, suggests for a batch of
 * memory events. It is only a proposal: the consolidator validates provenance (MM-GRF-4), cuts
 * limits (MM-GRF-5), resolves entities (MM-GRF-6) and records the resulting operations.
 */
export const NODE_TYPES = ['person', 'project', 'organization', 'tool', 'place'] as const;
export type NodeType = (typeof NODE_TYPES)[number];

const Sources = z.array(z.string()).default([]);

export const ProposedValue = z.object({ value: z.string(), sourceEventIds: Sources });

export const ProposedFact = z.object({
  key: z.string().min(1),
  value: z.union([z.string(), z.array(z.string())]),
  sourceEventIds: Sources,
  validFrom: z.string().optional(),
  confidence: z.number().optional(),
});
export type ProposedFact = z.infer<typeof ProposedFact>;

export const ProposedNode = z.object({
  /** Proposal-local reference used by edges; an existing node's id reuses that node. */
  ref: z.string().min(1),
  name: z.string().min(1),
  type: z.enum(NODE_TYPES),
  /** Events that back the name itself (MM-GRF-4: a node without name provenance fails the batch). */
  nameSourceEventIds: Sources,
  aliases: z.array(ProposedValue).default([]),
  tags: z.array(ProposedValue).default([]),
  /** Shorthand for a fact with key `state` (MM-GRF-2). */
  state: ProposedFact.omit({ key: true }).optional(),
  facts: z.array(ProposedFact).default([]),
  sourceEventIds: Sources,
  confidence: z.number().optional(),
});
export type ProposedNode = z.infer<typeof ProposedNode>;

export const ProposedEdge = z.object({
  fromRef: z.string().min(1),
  toRef: z.string().min(1),
  relation: z.string().min(1),
  sourceEventIds: Sources,
  validFrom: z.string().optional(),
  confidence: z.number().optional(),
});
export type ProposedEdge = z.infer<typeof ProposedEdge>;

export const GraphProposal = z.object({
  nodes: z.array(ProposedNode).default([]),
  edges: z.array(ProposedEdge).default([]),
  reason: z.string().optional(),
});
export type GraphProposal = z.infer<typeof GraphProposal>;

/** An event as the graph proposer sees it. */
export interface GraphSourceEvent {
  id: string;
  title: string;
  summary: string;
  tags: string[];
  scope: 'user' | 'project' | 'session';
  eventType: string;
  participants: string[];
  /** happenedStart ?? happenedEnd ?? mentionedAt ?? createdAt (MM-GRF-7). */
  sourceTime: string;
}

/** An existing node as context for the proposer (MM-GRF-10: ≤ 32 nodes, ≤ 60 edges). */
export interface GraphContextNode {
  id: string;
  name: string;
  type: NodeType;
  aliases: string[];
  currentFacts: { key: string; value: string | string[] }[];
}

export interface GraphContextEdge {
  fromId: string;
  toId: string;
  relation: string;
}

export interface GraphProposalInput {
  events: GraphSourceEvent[];
  nodes: GraphContextNode[];
  edges: GraphContextEdge[];
}
