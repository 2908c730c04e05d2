import { describe, expect, it } from 'vitest';
import { event, opsOf, planOk, proposedNode } from './graph.fixtures.ts';
import type { GraphFact, GraphNode, GraphSnapshot, ProposedFactLike } from './graph-types.ts';

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

function fact(fields: Partial<GraphFact> & Pick<GraphFact, 'id' | 'key' | 'value'>): GraphFact {
  return {
    nodeId: 'node_x',
    status: 'active',
    confidence: 0.8,
    sourceEventIds: ['e0'],
    validFrom: T0,
    validTo: null,
    ...fields,
  };
}

const withFacts = (...facts: GraphFact[]): GraphSnapshot => ({ nodes: [nodeX], facts, edges: [] });
const xWith = (facts: ProposedFactLike[], sourceEventIds = ['e2']) =>
  proposedNode({ ref: 'node_x', name: 'X', sourceEventIds, facts });

describe('facts (MM-GRF-7)', () => {
  it('a new active fact with the same key supersedes the old one at its validFrom', () => {
    const result = planOk({
      snapshot: withFacts(fact({ id: 'gfact_old', key: 'company', value: 'A公司' })),
      events: [event('e2', T2)],
      nodes: [xWith([{ key: 'company', value: 'B公司', sourceEventIds: ['e2'] }])],
    });
    expect(result.operations.filter((op) => op.op.startsWith('fact.'))).toEqual([
      {
        op: 'fact.add',
        fact: {
          id: 'gfact_1',
          nodeId: 'node_x',
          key: 'company',
          value: 'B公司',
          status: 'active',
          confidence: 0.8,
          sourceEventIds: ['e2'],
          validFrom: T2,
          validTo: null,
        },
      },
      { op: 'fact.supersede', factId: 'gfact_old', validTo: T2, supersededBy: 'gfact_1' },
    ]);
  });

  it('defaults validFrom to the latest source time and honours an explicit UTC one', () => {
    const result = planOk({
      snapshot: withFacts(),
      events: [event('e1', T1), event('e2', T2)],
      nodes: [
        xWith(
          [
            { key: 'a', value: '1', sourceEventIds: ['e2', 'e1'] },
            { key: 'b', value: '2', sourceEventIds: ['e1'], validFrom: '2024-06-01' },
            { key: 'c', value: '3', sourceEventIds: ['e1'], validFrom: 'next week' },
          ],
          ['e1', 'e2'],
        ),
      ],
    });
    const validFrom = opsOf(result.operations, 'fact.add').map((op) => op.fact.validFrom);
    expect(validFrom).toEqual([T2, '2024-06-01T00:00:00.000Z', T1]);
    expect(result.warnings).toEqual([expect.stringMatching(/fact "c" .*"next week"/)]);
  });

  it('does not duplicate a fact that is already current', () => {
    const result = planOk({
      snapshot: withFacts(fact({ id: 'gfact_old', key: 'Company', value: 'B公司' })),
      events: [event('e2', T2)],
      nodes: [xWith([{ key: 'company', value: 'B公司', sourceEventIds: ['e2'] }])],
    });
    expect(opsOf(result.operations, 'fact.add')).toEqual([]);
  });

  it('re-asserts an identical fact whose known sources are no longer active', () => {
    // Otherwise the value would stay invisible: current needs an active source (MM-GRF-8).
    const result = planOk({
      snapshot: withFacts(
        fact({ id: 'gfact_old', key: 'company', value: 'B公司', sourceEventIds: ['e1'] }),
      ),
      events: [event('e1', T1, 'superseded'), event('e2', T2)],
      batch: ['e2'],
      nodes: [xWith([{ key: 'company', value: 'B公司', sourceEventIds: ['e2'] }])],
    });
    expect(result.operations.map((op) => op.op)).toEqual([
      'node.update',
      'fact.add',
      'fact.supersede',
    ]);
  });

  it('a conflicting claim below confidence 0.5 marks the current fact disputed instead', () => {
    const snapshot = withFacts(fact({ id: 'gfact_old', key: 'company', value: 'A公司' }));
    const weak = planOk({
      snapshot,
      events: [event('e2', T2)],
      nodes: [
        xWith([{ key: 'company', value: 'B公司', sourceEventIds: ['e2'], confidence: 0.49 }]),
      ],
    });
    expect(weak.operations.filter((op) => op.op.startsWith('fact.'))).toEqual([
      { op: 'fact.dispute', factId: 'gfact_old' },
    ]);
    expect(weak.warnings).toEqual([
      expect.stringMatching(/confidence 0.49: current value disputed/),
    ]);
    const firm = planOk({
      snapshot,
      events: [event('e2', T2)],
      nodes: [xWith([{ key: 'company', value: 'B公司', sourceEventIds: ['e2'], confidence: 0.5 }])],
    });
    expect(opsOf(firm.operations, 'fact.supersede')).toHaveLength(1);
  });

  it('files an older claim that arrives late as history instead of overturning the newer one', () => {
    const result = planOk({
      snapshot: withFacts(fact({ id: 'gfact_new', key: 'company', value: 'B公司', validFrom: T2 })),
      events: [event('e1', T1, 'superseded')],
      nodes: [xWith([{ key: 'company', value: 'A公司', sourceEventIds: ['e1'] }], ['e1'])],
    });
    expect(result.operations.filter((op) => op.op.startsWith('fact.'))).toEqual([
      {
        op: 'fact.add',
        fact: expect.objectContaining({ id: 'gfact_1', value: 'A公司', validFrom: T1 }),
      },
      { op: 'fact.supersede', factId: 'gfact_1', validTo: T2, supersededBy: 'gfact_new' },
    ]);
    expect(result.warnings).toEqual([]);
  });

  it('turns the state shorthand into the fact `state`, ordering claims of one key by time', () => {
    const result = planOk({
      snapshot: withFacts(),
      events: [event('e1', T1), event('e2', T2)],
      nodes: [
        proposedNode({
          ref: 'node_x',
          name: 'X',
          sourceEventIds: ['e1'],
          state: { value: 'migrating to pnpm', sourceEventIds: ['e2'] },
          facts: [{ key: 'State', value: 'on npm', sourceEventIds: ['e1'] }],
        }),
      ],
    });
    expect(result.operations.filter((op) => op.op.startsWith('fact.'))).toEqual([
      {
        op: 'fact.add',
        fact: expect.objectContaining({ id: 'gfact_1', key: 'State', value: 'on npm' }),
      },
      {
        op: 'fact.add',
        fact: expect.objectContaining({ id: 'gfact_2', key: 'state', value: 'migrating to pnpm' }),
      },
      { op: 'fact.supersede', factId: 'gfact_1', validTo: T2, supersededBy: 'gfact_2' },
    ]);
  });
});
