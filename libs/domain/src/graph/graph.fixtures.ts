import { planGraphUpdate } from './graph-planner.ts';
import type {
  GraphIdPrefix,
  GraphOperation,
  GraphProposalLike,
  GraphSnapshot,
  ProposedEdgeLike,
  ProposedNodeLike,
  SourceEventInfo,
  SourceEventStatus,
} from './graph-types.ts';

/* Builders shared by the graph specs; kept out of the specs so each spec reads as its rule. */

export const EMPTY_GRAPH: GraphSnapshot = { nodes: [], facts: [], edges: [] };

export function event(
  id: string,
  sourceTime: string,
  status: SourceEventStatus = 'active',
): SourceEventInfo {
  return { id, status, sourceTime };
}

/** Deterministic ids: `node_1`, `gfact_1`, `edge_1`, … counted per prefix. */
export function counterIds(): (prefix: GraphIdPrefix) => string {
  const counts: Record<GraphIdPrefix, number> = { node: 0, gfact: 0, edge: 0 };
  return (prefix) => {
    counts[prefix] += 1;
    return `${prefix}_${counts[prefix]}`;
  };
}

export function proposedNode(
  fields: Partial<ProposedNodeLike> & Pick<ProposedNodeLike, 'ref' | 'name'>,
): ProposedNodeLike {
  return {
    type: 'project',
    nameSourceEventIds: fields.sourceEventIds ?? [],
    aliases: [],
    tags: [],
    facts: [],
    sourceEventIds: [],
    ...fields,
  };
}

export function proposedEdge(
  fromRef: string,
  relation: string,
  toRef: string,
  sourceEventIds: string[],
  extra: Partial<ProposedEdgeLike> = {},
): ProposedEdgeLike {
  return { fromRef, relation, toRef, sourceEventIds, ...extra };
}

export interface PlanArgs {
  snapshot?: GraphSnapshot;
  nodes?: ProposedNodeLike[];
  edges?: ProposedEdgeLike[];
  events: SourceEventInfo[];
  /** Defaults to every event given. */
  batch?: string[];
  newId?: (prefix: GraphIdPrefix) => string;
}

export function plan(args: PlanArgs) {
  const proposal: GraphProposalLike = { nodes: args.nodes ?? [], edges: args.edges ?? [] };
  return planGraphUpdate({
    snapshot: args.snapshot ?? EMPTY_GRAPH,
    proposal,
    batchEventIds: args.batch ?? args.events.map((e) => e.id),
    events: args.events,
    newId: args.newId ?? counterIds(),
  });
}

/** The successful plan, or a thrown error carrying the planner's message. */
export function planOk(args: PlanArgs) {
  const result = plan(args);
  if (!result.ok) throw new Error(`expected a plan, got: ${result.error}`);
  return result;
}

export function opsOf<K extends GraphOperation['op']>(
  operations: readonly GraphOperation[],
  op: K,
): Extract<GraphOperation, { op: K }>[] {
  return operations.filter((o): o is Extract<GraphOperation, { op: K }> => o.op === op);
}
