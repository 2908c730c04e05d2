import { compareInstants, compareStrings, renderFactValue, uniqueStrings } from './graph-limits.ts';
import type {
  GraphEdge,
  GraphFact,
  GraphNode,
  GraphStatus,
  NodeType,
  SourceEventInfo,
} from './graph-types.ts';

/*
 * MM-GRF-8 effective view: what a reader may see of a node once event statuses are applied.
 * Records are never rewritten when an event is forgotten; visibility is decided here, at read time,
 * so restoring the event brings its records back unchanged (MM-EVT-19).
 */

export const MAX_GRAPH_PROVENANCE = 6;

export interface EffectiveNode {
  id: string;
  name: string;
  type: NodeType;
  aliases: string[];
  tags: string[];
  status: GraphStatus;
  currentState: string;
  currentFacts: (GraphFact & { disputed: boolean; citedEventIds: string[] })[];
  historicalFacts: (GraphFact & { citedEventIds: string[] })[];
  currentEdges: (GraphEdge & { citedEventIds: string[] })[];
  historicalEdges: (GraphEdge & { citedEventIds: string[] })[];
  /** At most 6 cited events, most recent source time first, ties by id. */
  provenanceEventIds: string[];
}

type Timeline = 'current' | 'historical' | 'hidden';

export function effectiveNode(
  node: GraphNode,
  facts: readonly GraphFact[],
  edges: readonly GraphEdge[],
  events: readonly SourceEventInfo[],
): EffectiveNode | null {
  const byId = new Map(events.map((event) => [event.id, event]));
  // A source nobody described is not known to be visible, so it is never cited.
  const visible = (ids: readonly string[]) =>
    uniqueStrings(ids).filter((id) => {
      const status = byId.get(id)?.status;
      return status === 'active' || status === 'superseded';
    });
  const hasActive = (ids: readonly string[]) => ids.some((id) => byId.get(id)?.status === 'active');

  if (node.status !== 'active' && node.status !== 'disputed') return null;
  const nodeSources = visible(node.sourceEventIds);
  if (nodeSources.length === 0) return null;

  const timeline = (item: GraphFact | GraphEdge): Timeline => {
    switch (item.status) {
      case 'active':
      case 'disputed':
        return hasActive(item.sourceEventIds) ? 'current' : 'hidden';
      case 'superseded':
        return visible(item.sourceEventIds).length > 0 ? 'historical' : 'hidden';
      case 'archived':
        return 'hidden';
      default:
        return assertNever(item.status);
    }
  };
  const cite = <T extends GraphFact | GraphEdge>(item: T) => ({
    ...item,
    citedEventIds: visible(item.sourceEventIds),
  });

  const ownFacts = facts.filter((fact) => fact.nodeId === node.id).sort(byKeyThenTime);
  const currentFacts = ownFacts
    .filter((fact) => timeline(fact) === 'current')
    .map((fact) => ({ ...cite(fact), disputed: fact.status === 'disputed' }));
  const historicalFacts = ownFacts.filter((fact) => timeline(fact) === 'historical').map(cite);
  const ownEdges = edges
    .filter((edge) => edge.fromId === node.id || edge.toId === node.id)
    .sort(byRelationThenTime);
  const currentEdges = ownEdges.filter((edge) => timeline(edge) === 'current').map(cite);
  const historicalEdges = ownEdges.filter((edge) => timeline(edge) === 'historical').map(cite);

  const currentState = currentFacts
    .map(
      (fact) => `${fact.key}: ${renderFactValue(fact.value)}${fact.disputed ? ' [disputed]' : ''}`,
    )
    .join('\n');

  const cited = uniqueStrings([
    ...nodeSources,
    ...visible(node.nameSourceEventIds),
    ...[...currentFacts, ...historicalFacts, ...currentEdges, ...historicalEdges].flatMap(
      (item) => item.citedEventIds,
    ),
  ]);
  const provenanceEventIds = cited
    .sort((a, b) => {
      const byTime = compareInstants(byId.get(b)?.sourceTime ?? '', byId.get(a)?.sourceTime ?? '');
      return byTime !== 0 ? byTime : compareStrings(a, b);
    })
    .slice(0, MAX_GRAPH_PROVENANCE);

  return {
    id: node.id,
    name: node.name,
    type: node.type,
    aliases: node.aliases
      .filter((alias) => alias.visible && visible(alias.sourceEventIds).length > 0)
      .map((alias) => alias.value),
    tags: node.tags.filter((tag) => visible(tag.sourceEventIds).length > 0).map((tag) => tag.value),
    status: node.status,
    currentState,
    currentFacts,
    historicalFacts,
    currentEdges,
    historicalEdges,
    provenanceEventIds,
  };
}

function byKeyThenTime(a: GraphFact, b: GraphFact): number {
  return (
    compareStrings(a.key, b.key) ||
    compareInstants(a.validFrom ?? '', b.validFrom ?? '') ||
    compareStrings(a.id, b.id)
  );
}

function byRelationThenTime(a: GraphEdge, b: GraphEdge): number {
  return (
    compareStrings(a.relation, b.relation) ||
    compareInstants(a.validFrom ?? '', b.validFrom ?? '') ||
    compareStrings(a.id, b.id)
  );
}

function assertNever(value: never): never {
  throw new Error(`unhandled graph status ${String(value)}`);
}
