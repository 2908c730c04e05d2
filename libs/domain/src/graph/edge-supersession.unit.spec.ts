import { describe, expect, it } from 'vitest';
import { event, planOk, proposedEdge } from './graph.fixtures.ts';
import type { GraphEdge, GraphNode, GraphSnapshot } from './graph-types.ts';

const T0 = '2024-04-20T09:00:00.000Z';
const T1 = '2024-05-01T09:00:00.000Z';
const T2 = '2024-05-06T09:00:00.000Z';

const nodeX: GraphNode = {
  id: 'node_x',
  name: 'X',
  type: 'project',
  aliases: [],
  tags: [],
  status: 'active',
  confidence: 0.8,
  sourceEventIds: ['e0'],
  nameSourceEventIds: ['e0'],
};
const toolNode = (id: string, name: string): GraphNode => ({ ...nodeX, id, name, type: 'tool' });

describe('edges (MM-GRF-7)', () => {
  const snapshot: GraphSnapshot = {
    nodes: [nodeX, toolNode('node_npm', 'npm'), toolNode('node_pnpm', 'pnpm')],
    facts: [],
    edges: [
      {
        id: 'edge_old',
        fromId: 'node_x',
        toId: 'node_npm',
        relation: 'uses',
        status: 'active',
        confidence: 0.8,
        sourceEventIds: ['e0'],
        validFrom: T1,
        validTo: null,
      } satisfies GraphEdge,
    ],
  };

  it('a new edge with the same from-node and relation but another target supersedes the old one', () => {
    const result = planOk({
      snapshot,
      events: [event('e2', T2)],
      edges: [proposedEdge('node_x', 'uses', 'node_pnpm', ['e2'])],
    });
    expect(result.operations).toEqual([
      {
        op: 'edge.add',
        edge: {
          id: 'edge_1',
          fromId: 'node_x',
          toId: 'node_pnpm',
          relation: 'uses',
          status: 'active',
          confidence: 0.8,
          sourceEventIds: ['e2'],
          validFrom: T2,
          validTo: null,
        },
      },
      { op: 'edge.supersede', edgeId: 'edge_old', validTo: T2, supersededBy: 'edge_1' },
    ]);
    expect(result.eventNodeIds).toEqual({ e2: ['node_pnpm', 'node_x'] });
  });

  it('leaves the edge alone for the same target or another relation', () => {
    const result = planOk({
      snapshot,
      events: [event('e2', T2)],
      edges: [
        proposedEdge('node_x', 'uses', 'node_npm', ['e2']),
        proposedEdge('node_x', 'depends on', 'node_pnpm', ['e2']),
      ],
    });
    expect(result.operations.map((op) => op.op)).toEqual(['edge.add']);
  });

  it('treats an edge backed only by superseded events like such a fact: history yes, current no', () => {
    const result = planOk({
      snapshot,
      events: [event('e0', T0, 'superseded'), event('e2', T2, 'superseded')],
      edges: [
        proposedEdge('node_x', 'uses', 'node_pnpm', ['e2']),
        proposedEdge('node_x', 'uses', 'node_pnpm', ['e0'], { relation: 'used' }),
        proposedEdge('node_x', 'uses', 'node_x', ['e0']),
      ],
    });
    // e2 would replace the npm edge, and `used` would start current, though nothing active says
    // so; the edge from e0 predates the npm edge and goes straight to history.
    expect(result.operations).toEqual([
      {
        op: 'edge.add',
        edge: expect.objectContaining({ id: 'edge_1', relation: 'uses', toId: 'node_x' }),
      },
      { op: 'edge.supersede', edgeId: 'edge_1', validTo: T1, supersededBy: 'edge_old' },
    ]);
    expect(result.warnings).toEqual([
      expect.stringMatching(/-uses-> node_pnpm dropped: no active source/),
      expect.stringMatching(/-used-> node_pnpm dropped: no active source/),
    ]);
  });

  it('drops an edge whose endpoint does not resolve, with a warning', () => {
    const result = planOk({
      snapshot,
      events: [event('e2', T2)],
      edges: [proposedEdge('node_x', 'uses', 'yarn', ['e2'])],
    });
    expect(result.operations).toEqual([]);
    expect(result.warnings).toEqual([expect.stringMatching(/-uses-> yarn dropped: an endpoint/)]);
  });
});
