export type {
  GraphEdge,
  GraphFact,
  GraphIdPrefix,
  GraphNode,
  GraphOperation,
  GraphPlan,
  GraphProposalLike,
  GraphSnapshot,
  GraphStatus,
  NodeType,
  PlanGraphInput,
  ProposedEdgeLike,
  ProposedFactLike,
  ProposedNodeLike,
  ProposedValueLike,
  SourceEventInfo,
  SourceEventStatus,
} from './graph-types.ts';
export { GRAPH_NODE_TYPES } from './graph-types.ts';
export {
  canonicalUtc,
  DEFAULT_GRAPH_CONFIDENCE,
  GRAPH_LIMITS,
  normaliseEntityName,
} from './graph-limits.ts';
export { DISPUTE_BELOW_CONFIDENCE } from './graph-timeline.ts';
export { planGraphUpdate } from './graph-planner.ts';
export { effectiveNode, MAX_GRAPH_PROVENANCE, type EffectiveNode } from './graph-effective.ts';
export { applyGraphOperations } from './graph-reducer.ts';
export {
  DEFAULT_GRAPH_SEARCH_LIMIT,
  GRAPH_CARD_STATE_MAX,
  GRAPH_SEARCH_WEIGHTS,
  GRAPH_TIMELINE_MAX,
  graphCardState,
  graphNodeSearchFields,
  graphSearchView,
  graphTimeline,
  matchGraphNode,
  MAX_GRAPH_SEARCH_LIMIT,
  type GraphMatch,
  type GraphMatchField,
  type GraphMatchType,
  type GraphSearchEdge,
  type GraphSearchFact,
  type GraphSearchView,
  type GraphTimelineEntry,
  type GraphTimelineKind,
} from './graph-match.ts';
