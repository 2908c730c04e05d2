import { describe, expect, it } from 'vitest';
import {
  counterIds,
  EMPTY_GRAPH,
  event,
  opsOf,
  planOk,
  proposedEdge,
  proposedNode,
  type PlanArgs,
} from './graph.fixtures.ts';
import { effectiveNode } from './graph-effective.ts';
import { applyGraphOperations } from './graph-reducer.ts';
import type { GraphSnapshot, SourceEventInfo } from './graph-types.ts';

const MAY_1 = '2024-05-01T10:00:00.000Z';
const MAY_6 = '2024-05-06T10:00:00.000Z';

const view = (graph: GraphSnapshot, nodeId: string, events: SourceEventInfo[]) => {
  const node = graph.nodes.find((n) => n.id === nodeId);
  if (!node) throw new Error(`no node ${nodeId}`);
  return effectiveNode(node, graph.facts, graph.edges, events);
};

describe('S1: npm -> pnpm for project X (§15)', () => {
  const newId = counterIds();
  const batch1: PlanArgs = {
    events: [event('E1', MAY_1)],
    newId,
    nodes: [
      proposedNode({ ref: 'x', name: 'Project X', sourceEventIds: ['E1'] }),
      proposedNode({ ref: 'npm', name: 'npm', type: 'tool', sourceEventIds: ['E1'] }),
    ],
    edges: [proposedEdge('x', 'uses', 'npm', ['E1'])],
  };
  const first = planOk(batch1);
  const afterFirst = applyGraphOperations(EMPTY_GRAPH, first.operations);

  // E2 supersedes E1 before the second batch commits; E1's text and sources do not change.
  const events = [event('E1', MAY_1, 'superseded'), event('E2', MAY_6), event('E3', MAY_6)];
  const batch2: PlanArgs = {
    snapshot: afterFirst,
    events,
    batch: ['E2', 'E3'],
    nodes: [
      proposedNode({
        ref: 'proj',
        name: 'project_x',
        sourceEventIds: ['E2', 'E3'],
        nameSourceEventIds: ['E2'],
        facts: [{ key: 'ci', value: 'pending verification', sourceEventIds: ['E3'] }],
      }),
      proposedNode({ ref: 'pnpm', name: 'pnpm', type: 'tool', sourceEventIds: ['E2'] }),
    ],
    edges: [proposedEdge('proj', 'uses', 'pnpm', ['E2'])],
  };
  const second = planOk({ ...batch2, newId });
  const afterSecond = applyGraphOperations(afterFirst, second.operations);

  it('the first batch records X -uses-> npm', () => {
    expect(first.operations.map((op) => op.op)).toEqual(['node.create', 'node.create', 'edge.add']);
    expect(view(afterFirst, 'node_1', [event('E1', MAY_1)])?.currentEdges).toMatchObject([
      { fromId: 'node_1', toId: 'node_2', relation: 'uses', citedEventIds: ['E1'] },
    ]);
  });

  it('the second batch merges X by name and supersedes the npm edge with pnpm', () => {
    expect(second.operations).toEqual([
      expect.objectContaining({
        op: 'node.create',
        node: expect.objectContaining({ id: 'node_3', name: 'pnpm' }),
      }),
      expect.objectContaining({
        op: 'node.update',
        nodeId: 'node_1',
        addSourceEventIds: ['E2', 'E3'],
      }),
      expect.objectContaining({
        op: 'fact.add',
        fact: expect.objectContaining({ key: 'ci', validFrom: MAY_6 }),
      }),
      expect.objectContaining({
        op: 'edge.add',
        edge: expect.objectContaining({ id: 'edge_2', toId: 'node_3' }),
      }),
      { op: 'edge.supersede', edgeId: 'edge_1', validTo: MAY_6, supersededBy: 'edge_2' },
    ]);
    expect(second.eventNodeIds).toEqual({ E2: ['node_1', 'node_3'], E3: ['node_1'] });
  });

  it('the effective view: pnpm current (E2), npm historical (E1), CI pending verification (E3)', () => {
    const x = view(afterSecond, 'node_1', events);
    expect(x?.currentEdges.map((e) => [e.toId, e.citedEventIds])).toEqual([['node_3', ['E2']]]);
    expect(x?.historicalEdges.map((e) => [e.toId, e.validTo, e.citedEventIds])).toEqual([
      ['node_2', MAY_6, ['E1']],
    ]);
    expect(x?.currentState).toBe('ci: pending verification');
    expect(x?.aliases).toEqual(['project_x']);
    expect(x?.provenanceEventIds).toEqual(['E2', 'E3', 'E1']);
  });

  it('is deterministic: the same input gives the same operations, whatever the event order', () => {
    const again = planOk({ ...batch2, newId: idsAfterFirstBatch() });
    const shuffled = planOk({
      ...batch2,
      events: [...events].reverse(),
      newId: idsAfterFirstBatch(),
    });
    expect(again).toEqual(second);
    expect(shuffled).toEqual(second);
  });

  it('replaying the operations, or delivering them twice, rebuilds the same graph', () => {
    const twice = applyGraphOperations(afterSecond, [...first.operations, ...second.operations]);
    expect(twice).toEqual(afterSecond);
  });

  function idsAfterFirstBatch() {
    const ids = counterIds();
    ['node', 'node', 'edge'].forEach((prefix) => ids(prefix as 'node' | 'edge'));
    return ids;
  }
});

describe('acceptance: end to end, 3 nodes and 2 edges', () => {
  it('plans, applies and reads back three nodes joined by two edges', () => {
    const events = [event('e1', MAY_1), event('e2', MAY_6)];
    const result = planOk({
      events,
      nodes: [
        proposedNode({ ref: 'ann', name: 'Ann', type: 'person', sourceEventIds: ['e1'] }),
        proposedNode({ ref: 'x', name: 'Project X', sourceEventIds: ['e1', 'e2'] }),
        proposedNode({ ref: 'pnpm', name: 'pnpm', type: 'tool', sourceEventIds: ['e2'] }),
      ],
      edges: [
        proposedEdge('ann', 'works on', 'x', ['e1']),
        proposedEdge('x', 'uses', 'pnpm', ['e2']),
      ],
    });
    const graph = applyGraphOperations(EMPTY_GRAPH, result.operations);
    expect(graph.nodes.map((n) => [n.id, n.name, n.type])).toEqual([
      ['node_1', 'Ann', 'person'],
      ['node_2', 'Project X', 'project'],
      ['node_3', 'pnpm', 'tool'],
    ]);
    expect(graph.edges.map((e) => [e.fromId, e.relation, e.toId, e.status])).toEqual([
      ['node_1', 'works on', 'node_2', 'active'],
      ['node_2', 'uses', 'node_3', 'active'],
    ]);
    expect(view(graph, 'node_2', events)?.currentEdges.map((e) => e.id)).toEqual([
      'edge_2',
      'edge_1',
    ]);
    expect(result.eventNodeIds).toEqual({ e1: ['node_1', 'node_2'], e2: ['node_2', 'node_3'] });
    expect(opsOf(result.operations, 'node.update')).toEqual([]);
  });
});

describe('applyGraphOperations', () => {
  it('throws on an operation for a record that does not exist', () => {
    expect(() =>
      applyGraphOperations(EMPTY_GRAPH, [{ op: 'fact.dispute', factId: 'gfact_404' }]),
    ).toThrow(/gfact_404 does not exist/);
  });
});
