import { uniqueStrings } from './graph-limits.ts';
import type { GraphNode, GraphOperation, GraphSnapshot, GraphStatus } from './graph-types.ts';

/*
 * evolve(snapshot, operations) -> snapshot: the reference the projector's SQL mirrors. Every
 * operation is idempotent on its own (an add of a known id is ignored, unions stay unions), so a
 * batch delivered twice leaves the same graph. An operation on an unknown record throws: the
 * planner only targets records in its snapshot, so that is a bug, not a race.
 */

export function applyGraphOperations(
  snapshot: GraphSnapshot,
  operations: readonly GraphOperation[],
): GraphSnapshot {
  let { nodes, facts, edges } = snapshot;
  for (const operation of operations) {
    switch (operation.op) {
      case 'node.create':
        if (!nodes.some((node) => node.id === operation.node.id)) {
          nodes = [...nodes, operation.node];
        }
        break;
      case 'node.update':
        nodes = replace(nodes, operation.nodeId, 'node', (node) => ({
          ...node,
          aliases: unite(node.aliases, operation.addAliases),
          tags: unite(node.tags, operation.addTags),
          sourceEventIds: uniqueStrings([...node.sourceEventIds, ...operation.addSourceEventIds]),
        }));
        break;
      case 'fact.add':
        if (!facts.some((fact) => fact.id === operation.fact.id)) {
          facts = [...facts, operation.fact];
        }
        break;
      case 'fact.supersede':
        facts = replace(facts, operation.factId, 'fact', (fact) => ({
          ...fact,
          status: 'superseded',
          validTo: operation.validTo,
        }));
        break;
      case 'fact.dispute':
        facts = replace(facts, operation.factId, 'fact', (fact) => ({
          ...fact,
          status: disputed(fact.status),
        }));
        break;
      case 'edge.add':
        if (!edges.some((edge) => edge.id === operation.edge.id)) {
          edges = [...edges, operation.edge];
        }
        break;
      case 'edge.supersede':
        edges = replace(edges, operation.edgeId, 'edge', (edge) => ({
          ...edge,
          status: 'superseded',
          validTo: operation.validTo,
        }));
        break;
      default:
        return assertNever(operation);
    }
  }
  return { nodes, facts, edges };
}

/** Only a current record can become disputed; a superseded or archived one keeps its status. */
function disputed(status: GraphStatus): GraphStatus {
  return status === 'active' ? 'disputed' : status;
}

function replace<T extends { id: string }>(
  items: readonly T[],
  id: string,
  kind: string,
  change: (item: T) => T,
): T[] {
  if (!items.some((item) => item.id === id)) throw new Error(`graph ${kind} ${id} does not exist`);
  return items.map((item) => (item.id === id ? change(item) : item));
}

/** Unites values by exact text; an existing entry keeps its visibility (hiding is deliberate). */
function unite<T extends GraphNode['tags'][number]>(
  existing: readonly T[],
  added: readonly T[],
): T[] {
  const result = existing.map((entry) => ({ ...entry }));
  for (const entry of added) {
    const match = result.find((candidate) => candidate.value === entry.value);
    if (match)
      match.sourceEventIds = uniqueStrings([...match.sourceEventIds, ...entry.sourceEventIds]);
    else result.push({ ...entry, sourceEventIds: [...entry.sourceEventIds] });
  }
  return result;
}

function assertNever(value: never): never {
  throw new Error(`unhandled graph operation ${JSON.stringify(value)}`);
}
