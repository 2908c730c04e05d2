/*
 * Knowledge-graph shapes (MM-GRF-1/2). The planner turns a model's proposal into operations that
 * are recorded in the log; the projector applies them and reads go through the effective view.
 * The proposal input is declared here structurally, because libs/domain must not depend on
 * @stratagate/model: a parsed `GraphProposal` is assignable to `GraphProposalLike`.
 */

export const GRAPH_NODE_TYPES = ['person', 'project', 'organization', 'tool', 'place'] as const;
export type NodeType = (typeof GRAPH_NODE_TYPES)[number];

export type GraphStatus = 'active' | 'superseded' | 'disputed' | 'archived';

export interface GraphNode {
  id: string;
  name: string;
  type: NodeType;
  aliases: { value: string; sourceEventIds: string[]; visible: boolean }[];
  tags: { value: string; sourceEventIds: string[] }[];
  status: GraphStatus;
  confidence: number;
  sourceEventIds: string[];
  /** Events that back the canonical name (MM-GRF-4); a later spelling becomes an alias. */
  nameSourceEventIds: string[];
}

export interface GraphFact {
  id: string;
  nodeId: string;
  key: string;
  value: string | string[];
  status: GraphStatus;
  confidence: number;
  sourceEventIds: string[];
  validFrom: string | null;
  validTo: string | null;
}

export interface GraphEdge {
  id: string;
  fromId: string;
  toId: string;
  relation: string;
  status: GraphStatus;
  confidence: number;
  sourceEventIds: string[];
  validFrom: string | null;
  validTo: string | null;
}

/** The part of the current graph that the proposal can touch (MM-GRF-10 context). */
export interface GraphSnapshot {
  nodes: GraphNode[];
  facts: GraphFact[];
  edges: GraphEdge[];
}

export type SourceEventStatus = 'active' | 'superseded' | 'forgotten' | 'archived';

export interface SourceEventInfo {
  id: string;
  status: SourceEventStatus;
  /** happenedStart ?? happenedEnd ?? mentionedAt ?? createdAt, as normalised UTC ISO-8601. */
  sourceTime: string;
}

export type GraphOperation =
  | { op: 'node.create'; node: GraphNode }
  | {
      op: 'node.update';
      nodeId: string;
      addAliases: GraphNode['aliases'];
      addTags: GraphNode['tags'];
      addSourceEventIds: string[];
    }
  | { op: 'fact.add'; fact: GraphFact }
  | { op: 'fact.supersede'; factId: string; validTo: string | null; supersededBy: string }
  | { op: 'fact.dispute'; factId: string }
  | { op: 'edge.add'; edge: GraphEdge }
  | { op: 'edge.supersede'; edgeId: string; validTo: string | null; supersededBy: string };

export type GraphPlan =
  | {
      ok: true;
      operations: GraphOperation[];
      warnings: string[];
      /** eventId -> node ids it backs: the derived `participantNodeIds` index (MM-GRF-7). */
      eventNodeIds: Record<string, string[]>;
    }
  | { ok: false; error: string };

export type GraphIdPrefix = 'node' | 'gfact' | 'edge';

export interface PlanGraphInput {
  snapshot: GraphSnapshot;
  proposal: GraphProposalLike;
  /** The events the job claimed; every cited source must be one of them (MM-GRF-4). */
  batchEventIds: readonly string[];
  /** Status and time at commit of every batch event (and, ideally, of the snapshot's sources). */
  events: readonly SourceEventInfo[];
  newId: (prefix: GraphIdPrefix) => string;
}

export interface ProposedValueLike {
  value: string;
  sourceEventIds: readonly string[];
}

export interface ProposedFactLike {
  key: string;
  value: string | readonly string[];
  sourceEventIds: readonly string[];
  validFrom?: string | undefined;
  confidence?: number | undefined;
}

export interface ProposedNodeLike {
  ref: string;
  name: string;
  type: NodeType;
  nameSourceEventIds: readonly string[];
  aliases: readonly ProposedValueLike[];
  tags: readonly ProposedValueLike[];
  /** Shorthand for a fact with key `state` (MM-GRF-2). */
  state?: Omit<ProposedFactLike, 'key'> | undefined;
  facts: readonly ProposedFactLike[];
  sourceEventIds: readonly string[];
  confidence?: number | undefined;
}

export interface ProposedEdgeLike {
  fromRef: string;
  toRef: string;
  relation: string;
  sourceEventIds: readonly string[];
  validFrom?: string | undefined;
  confidence?: number | undefined;
}

export interface GraphProposalLike {
  nodes: readonly ProposedNodeLike[];
  edges: readonly ProposedEdgeLike[];
  reason?: string | undefined;
}
