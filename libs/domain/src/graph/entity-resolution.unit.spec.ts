import { describe, expect, it } from 'vitest';
import { event, opsOf, planOk, proposedNode } from './graph.fixtures.ts';
import type { GraphNode, GraphSnapshot, NodeType } from './graph-types.ts';

const T1 = '2024-05-01T09:00:00.000Z';
const events = [event('e1', T1), event('e2', T1), event('e3', T1)];

function existing(fields: Partial<GraphNode> & Pick<GraphNode, 'id' | 'name'>): GraphNode {
  return {
    type: 'organization',
    aliases: [],
    tags: [],
    status: 'active',
    confidence: 0.8,
    sourceEventIds: ['e0'],
    nameSourceEventIds: ['e0'],
    ...fields,
  };
}

const graphOf = (...nodes: GraphNode[]): GraphSnapshot => ({ nodes, facts: [], edges: [] });

describe('entity resolution (MM-GRF-6)', () => {
  it('acceptance: "Alpha Corp", "alpha_corp" and "AlphaCorp" merge when their type matches', () => {
    const result = planOk({
      events,
      nodes: ['Alpha Corp', 'alpha_corp', 'AlphaCorp'].map((name, i) =>
        proposedNode({ ref: `r${i}`, name, type: 'organization', sourceEventIds: [`e${i + 1}`] }),
      ),
    });
    const creates = opsOf(result.operations, 'node.create');
    expect(creates).toHaveLength(1);
    expect(creates[0]?.node).toMatchObject({
      name: 'Alpha Corp',
      nameSourceEventIds: ['e1'],
      sourceEventIds: ['e1', 'e2', 'e3'],
      aliases: [
        { value: 'alpha_corp', sourceEventIds: ['e2'], visible: true },
        { value: 'AlphaCorp', sourceEventIds: ['e3'], visible: true },
      ],
    });
    expect(result.eventNodeIds).toEqual({ e1: ['node_1'], e2: ['node_1'], e3: ['node_1'] });
  });

  it('acceptance: the same three names stay apart when their types differ', () => {
    const types: NodeType[] = ['organization', 'tool', 'project'];
    const result = planOk({
      events,
      nodes: ['Alpha Corp', 'alpha_corp', 'AlphaCorp'].map((name, i) =>
        proposedNode({ ref: `r${i}`, name, type: types[i], sourceEventIds: ['e1'] }),
      ),
    });
    const creates = opsOf(result.operations, 'node.create');
    expect(creates.map((op) => [op.node.name, op.node.type, op.node.aliases])).toEqual([
      ['Alpha Corp', 'organization', []],
      ['alpha_corp', 'tool', []],
      ['AlphaCorp', 'project', []],
    ]);
  });

  it('reuses an existing node: the canonical name keeps its provenance, the spelling becomes an alias', () => {
    const result = planOk({
      snapshot: graphOf(existing({ id: 'node_a', name: 'Alpha Corp' })),
      events,
      nodes: [
        proposedNode({ ref: 'a', name: 'AlphaCorp', type: 'organization', sourceEventIds: ['e1'] }),
      ],
    });
    expect(result.operations).toEqual([
      {
        op: 'node.update',
        nodeId: 'node_a',
        addAliases: [{ value: 'AlphaCorp', sourceEventIds: ['e1'], visible: true }],
        addTags: [],
        addSourceEventIds: ['e1'],
      },
    ]);
  });

  it('records nothing when a merge adds nothing new', () => {
    const node = existing({ id: 'node_a', name: 'Alpha Corp', sourceEventIds: ['e1'] });
    const result = planOk({
      snapshot: graphOf(node),
      events,
      nodes: [
        proposedNode({
          ref: 'a',
          name: 'Alpha Corp',
          type: 'organization',
          sourceEventIds: ['e1'],
        }),
      ],
    });
    expect(result.operations).toEqual([]);
    expect(result.eventNodeIds.e1).toEqual(['node_a']);
  });

  it('merges through a visible, proven alias', () => {
    const node = existing({
      id: 'node_a',
      name: 'Alpha Corporation',
      aliases: [{ value: 'ACME', sourceEventIds: ['e0'], visible: true }],
    });
    const result = planOk({
      snapshot: graphOf(node),
      events,
      nodes: [
        proposedNode({ ref: 'a', name: 'acme', type: 'organization', sourceEventIds: ['e1'] }),
      ],
    });
    expect(opsOf(result.operations, 'node.create')).toEqual([]);
    expect(opsOf(result.operations, 'node.update')[0]?.nodeId).toBe('node_a');
  });

  it.each([
    ['hidden', { value: 'ACME', sourceEventIds: ['e0'], visible: false }, []],
    ['unproven', { value: 'ACME', sourceEventIds: [], visible: true }, []],
    [
      'forgotten-only',
      { value: 'ACME', sourceEventIds: ['ef'], visible: true },
      [event('ef', T1, 'forgotten')],
    ],
  ])('never merges through a %s alias', (_, alias, extraEvents) => {
    const node = existing({ id: 'node_a', name: 'Alpha Corporation', aliases: [alias] });
    const result = planOk({
      snapshot: graphOf(node),
      events: [...events, ...extraEvents],
      batch: ['e1'],
      nodes: [
        proposedNode({ ref: 'a', name: 'ACME', type: 'organization', sourceEventIds: ['e1'] }),
      ],
    });
    expect(opsOf(result.operations, 'node.create').map((op) => op.node.name)).toEqual(['ACME']);
    expect(opsOf(result.operations, 'node.update')).toEqual([]);
  });

  it('does not merge into an archived node', () => {
    const result = planOk({
      snapshot: graphOf(existing({ id: 'node_a', name: 'Alpha Corp', status: 'archived' })),
      events,
      nodes: [
        proposedNode({
          ref: 'node_a',
          name: 'Alpha Corp',
          type: 'organization',
          sourceEventIds: ['e1'],
        }),
      ],
    });
    expect(opsOf(result.operations, 'node.create')).toHaveLength(1);
  });

  it('reuses the node whose id the ref names, whatever the proposed name', () => {
    const result = planOk({
      snapshot: graphOf(existing({ id: 'node_a', name: 'Alpha Corp' })),
      events,
      nodes: [
        proposedNode({
          ref: 'node_a',
          name: 'Alpha',
          type: 'organization',
          sourceEventIds: ['e2'],
        }),
      ],
    });
    expect(result.operations).toEqual([
      {
        op: 'node.update',
        nodeId: 'node_a',
        addAliases: [{ value: 'Alpha', sourceEventIds: ['e2'], visible: true }],
        addTags: [],
        addSourceEventIds: ['e2'],
      },
    ]);
  });

  it('merges a repeated ref into its first node, keeping the other name as an alias', () => {
    const result = planOk({
      events,
      nodes: [
        proposedNode({ ref: 'a', name: 'Ann', type: 'person', sourceEventIds: ['e1'] }),
        proposedNode({ ref: 'a', name: 'Annie', type: 'person', sourceEventIds: ['e2'] }),
      ],
    });
    expect(opsOf(result.operations, 'node.create').map((op) => op.node)).toEqual([
      expect.objectContaining({
        name: 'Ann',
        aliases: [{ value: 'Annie', sourceEventIds: ['e2'], visible: true }],
        sourceEventIds: ['e1', 'e2'],
      }),
    ]);
  });

  it('prefers a canonical-name match over an alias match, and the lowest id among equals', () => {
    const result = planOk({
      snapshot: graphOf(
        existing({
          id: 'node_c',
          name: 'Other',
          aliases: [{ value: 'Beta', sourceEventIds: ['e0'], visible: true }],
        }),
        existing({ id: 'node_b', name: 'beta' }),
        existing({ id: 'node_a', name: 'BETA' }),
      ),
      events,
      nodes: [
        proposedNode({ ref: 'b', name: 'BETA', type: 'organization', sourceEventIds: ['e1'] }),
      ],
    });
    expect(opsOf(result.operations, 'node.update').map((op) => op.nodeId)).toEqual(['node_a']);
  });
});
