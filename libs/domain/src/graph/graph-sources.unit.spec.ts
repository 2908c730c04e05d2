import { describe, expect, it } from 'vitest';
import { event, opsOf, plan, planOk, proposedEdge, proposedNode } from './graph.fixtures.ts';

const T1 = '2024-05-01T09:00:00.000Z';
const T2 = '2024-05-06T09:00:00.000Z';

describe('source validity (MM-GRF-4)', () => {
  it('acceptance: missing name provenance -> the job fails, naming the node', () => {
    const result = plan({
      events: [event('e1', T1)],
      nodes: [
        proposedNode({
          ref: 'x',
          name: 'Project X',
          sourceEventIds: ['e1'],
          nameSourceEventIds: [],
        }),
      ],
    });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatch(/"Project X".*name provenance/);
  });

  it.each([
    ['a node without sources', { sourceEventIds: [] }, /lacks valid sources: no sources/],
    ['a source outside the batch', { sourceEventIds: ['e1', 'e9'] }, /e9 is not in the batch/],
    ['an archived source', { sourceEventIds: ['e3'] }, /e3 is archived/],
    ['name provenance outside the batch', { nameSourceEventIds: ['e9'] }, /name provenance: e9/],
  ])('fails the whole plan for %s', (_, fields, error) => {
    const result = plan({
      events: [event('e1', T1), event('e3', T1, 'archived'), event('e9', T1)],
      batch: ['e1', 'e3'],
      nodes: [
        proposedNode({ ref: 'ok', name: 'Fine', sourceEventIds: ['e1'] }),
        proposedNode({ ref: 'x', name: 'Project X', sourceEventIds: ['e1'], ...fields }),
      ],
    });
    expect(result).toEqual({ ok: false, error: expect.stringMatching(error) });
  });

  it('accepts superseded sources for a node', () => {
    const result = planOk({
      events: [event('e1', T1, 'superseded')],
      nodes: [proposedNode({ ref: 'x', name: 'X', sourceEventIds: ['e1'] })],
    });
    expect(opsOf(result.operations, 'node.create')).toHaveLength(1);
  });

  it('fails when any cited source was forgotten before commit, even a fact or edge source', () => {
    const events = [event('e1', T1), event('e2', T2, 'forgotten')];
    const viaFact = plan({
      events,
      nodes: [
        proposedNode({
          ref: 'x',
          name: 'X',
          sourceEventIds: ['e1'],
          facts: [{ key: 'ci', value: 'passed', sourceEventIds: ['e2'] }],
        }),
      ],
    });
    expect(viaFact).toEqual({ ok: false, error: expect.stringMatching(/e2 cited by node "X"/) });
    const viaEdge = plan({
      events,
      nodes: [proposedNode({ ref: 'x', name: 'X', sourceEventIds: ['e1'] })],
      edges: [proposedEdge('x', 'uses', 'x', ['e2'])],
    });
    expect(viaEdge).toEqual({
      ok: false,
      error: expect.stringMatching(/e2 cited by edge x -uses-> x/),
    });
  });

  it('acceptance: a dropped alias -> the job completes with a warning', () => {
    const result = planOk({
      events: [event('e1', T1)],
      nodes: [
        proposedNode({
          ref: 'x',
          name: 'Project X',
          sourceEventIds: ['e1'],
          aliases: [
            { value: 'PX', sourceEventIds: [] },
            { value: 'X-Project', sourceEventIds: ['e1'] },
          ],
          tags: [{ value: 'build', sourceEventIds: ['e7'] }],
        }),
      ],
    });
    const [create] = opsOf(result.operations, 'node.create');
    expect(create?.node.aliases.map((alias) => alias.value)).toEqual(['X-Project']);
    expect(create?.node.tags).toEqual([]);
    expect(result.warnings).toEqual([
      expect.stringMatching(/alias "PX" .*dropped: no valid provenance/),
      expect.stringMatching(
        /tag "build" .*dropped: no valid provenance \(e7 is not in the batch\)/,
      ),
    ]);
  });

  it('drops facts without valid sources and current facts without an active source', () => {
    const result = planOk({
      events: [event('e1', T1), event('e0', T1, 'superseded')],
      nodes: [
        proposedNode({
          ref: 'x',
          name: 'X',
          sourceEventIds: ['e1'],
          facts: [
            { key: 'owner', value: 'Ann', sourceEventIds: [] },
            { key: 'ci', value: 'pending verification', sourceEventIds: ['e1', 'e8'] },
            { key: 'manager', value: 'npm', sourceEventIds: ['e0'] },
            { key: 'stage', value: 'prototype', sourceEventIds: ['e1'] },
          ],
        }),
      ],
    });
    expect(opsOf(result.operations, 'fact.add').map((op) => op.fact.key)).toEqual(['stage']);
    expect(result.warnings).toEqual([
      expect.stringMatching(/fact "owner" .*no valid sources \(no sources\)/),
      expect.stringMatching(/fact "ci" .*no valid sources \(e8 is not in the batch\)/),
      expect.stringMatching(/fact "manager" .*dropped: no active source/),
    ]);
  });
});

describe('cut limits (MM-GRF-5)', () => {
  it('cuts ref, name, relation, key and value, and clamps confidence', () => {
    const longRef = 'r'.repeat(130);
    const result = planOk({
      events: [event('e1', T1)],
      nodes: [
        proposedNode({
          ref: longRef,
          name: 'N'.repeat(200),
          sourceEventIds: ['e1'],
          confidence: 3,
          facts: [
            { key: 'k'.repeat(200), value: 'v'.repeat(1300), sourceEventIds: ['e1'] },
            {
              key: 'list',
              value: Array.from({ length: 45 }, (_, i) => `i${i}`),
              sourceEventIds: ['e1'],
            },
          ],
        }),
        proposedNode({ ref: 'b', name: 'B', sourceEventIds: ['e1'] }),
      ],
      // The edge names the uncut ref; both sides are cut the same way, so it still resolves.
      edges: [proposedEdge(`${longRef}zz`, 'rel'.repeat(50), 'b', ['e1'])],
    });
    const [a] = opsOf(result.operations, 'node.create');
    expect(a?.node.name).toHaveLength(160);
    expect(a?.node.confidence).toBe(1);
    const facts = opsOf(result.operations, 'fact.add').map((op) => op.fact);
    expect(facts[0]?.key).toHaveLength(160);
    expect(facts[0]?.value).toHaveLength(1200);
    expect(facts[0]?.confidence).toBe(0.8);
    expect(facts[1]?.value).toHaveLength(40);
    const [edge] = opsOf(result.operations, 'edge.add');
    expect(edge?.edge.relation).toHaveLength(100);
    expect(result.warnings).toEqual([]);
  });

  it('keeps at most 12 tags on a node and says so', () => {
    const tags = Array.from({ length: 14 }, (_, i) => ({ value: `t${i}`, sourceEventIds: ['e1'] }));
    const result = planOk({
      events: [event('e1', T1)],
      nodes: [proposedNode({ ref: 'x', name: 'X', sourceEventIds: ['e1'], tags })],
    });
    expect(opsOf(result.operations, 'node.create')[0]?.node.tags).toHaveLength(12);
    expect(result.warnings).toEqual([
      expect.stringMatching(/tag "t12" .*more than 12/),
      expect.stringMatching(/tag "t13" .*more than 12/),
    ]);
  });
});
