import type { GraphEdge, GraphFact, GraphNode } from '@stratagate/domain';
import type { GraphEdgeRow, GraphFactRow, GraphNodeRow } from './tables.ts';

/** Read-model rows to the domain's graph shapes (planner input and effective views). */
export const toNode = (r: GraphNodeRow): GraphNode => ({
  id: r.node_id,
  name: r.name,
  type: r.type,
  aliases: r.aliases,
  tags: r.tags,
  status: r.status,
  confidence: r.confidence,
  sourceEventIds: r.source_event_ids,
  nameSourceEventIds: r.name_source_event_ids,
});
export const toFact = (r: GraphFactRow): GraphFact => ({
  id: r.fact_id,
  nodeId: r.node_id,
  key: r.key,
  value: r.value,
  status: r.status,
  confidence: r.confidence,
  sourceEventIds: r.source_event_ids,
  validFrom: r.valid_from,
  validTo: r.valid_to,
});
export const toEdge = (r: GraphEdgeRow): GraphEdge => ({
  id: r.edge_id,
  fromId: r.from_id,
  toId: r.to_id,
  relation: r.relation,
  status: r.status,
  confidence: r.confidence,
  sourceEventIds: r.source_event_ids,
  validFrom: r.valid_from,
  validTo: r.valid_to,
});
