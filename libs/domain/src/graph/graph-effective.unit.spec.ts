import { describe, expect, it } from 'vitest';
import { event } from './graph.fixtures.ts';
import { effectiveNode } from './graph-effective.ts';
import type { GraphEdge, GraphFact, GraphNode } from './graph-types.ts';

const T1 = '2024-05-01T09:00:00.000Z';
const T2 = '2024-05-06T09:00:00.000Z';

const node: GraphNode = {
  id: 'node_ann',
  name: 'Ann',
  type: 'person',
  aliases: [
    { value: 'Annie', sourceEventIds: ['e1'], visible: true },
    { value: 'A.', sourceEventIds: ['e1'], visible: false },
    { value: 'Nan', sourceEventIds: ['ef'], visible: true },
  ],
  tags: [
    { value: 'engineer', sourceEventIds: ['e1'] },
    { value: 'secret', sourceEventIds: ['ef'] },
  ],
  status: 'active',
  confidence: 0.8,
  sourceEventIds: ['e1', 'ef'],
  nameSourceEventIds: ['e1'],
};

function fact(fields: Partial<GraphFact> & Pick<GraphFact, 'id' | 'key' | 'value'>): GraphFact {
  return {
    nodeId: 'node_ann',
    status: 'active',
    confidence: 0.8,
    sourceEventIds: ['e2'],
    validFrom: T1,
    validTo: null,
    ...fields,
  };
}

const events = [
  event('e1', T1, 'superseded'),
  event('e2', T2),
  event('ef', T2, 'forgotten'),
  event('ea', T2, 'archived'),
];

const companyFacts = (older: string, newer: string) => [
  fact({
    id: 'f1',
    key: 'company',
    value: older,
    status: 'superseded',
    sourceEventIds: ['e1'],
    validTo: T2,
  }),
  fact({ id: 'f2', key: 'company', value: newer, validFrom: T2 }),
];

describe('effective view (MM-GRF-8)', () => {
  it.each([
    ['A公司', 'B公司'],
    ['AlphaCorp', 'BetaCorp'],
  ])('acceptance: company %s superseded, %s active -> historical and current', (older, newer) => {
    const view = effectiveNode(node, companyFacts(older, newer), [], events);
    expect(view?.currentFacts.map((f) => [f.key, f.value])).toEqual([['company', newer]]);
    expect(view?.historicalFacts.map((f) => [f.key, f.value, f.citedEventIds])).toEqual([
      ['company', older, ['e1']],
    ]);
    expect(view?.currentState).toBe(`company: ${newer}`);
  });

  it('acceptance: when one of two sources is forgotten, only the visible one is cited', () => {
    const view = effectiveNode(
      node,
      [fact({ id: 'f1', key: 'role', value: 'lead', sourceEventIds: ['ef', 'e2'] })],
      [],
      events,
    );
    expect(view?.currentFacts[0]?.citedEventIds).toEqual(['e2']);
    expect(view?.provenanceEventIds).not.toContain('ef');
  });

  it('acceptance: a disputed fact is shown with [disputed], and lists read as comma lists', () => {
    const view = effectiveNode(
      node,
      [
        fact({ id: 'f1', key: 'company', value: 'A公司', status: 'disputed' }),
        fact({ id: 'f2', key: 'languages', value: ['TypeScript', 'Go'] }),
      ],
      [],
      events,
    );
    expect(view?.currentState).toBe('company: A公司 [disputed]\nlanguages: TypeScript, Go');
    expect(view?.currentFacts.map((f) => f.disputed)).toEqual([true, false]);
  });

  it('acceptance: provenance has at most 6 entries, most recent first, ties by id', () => {
    const ids = Array.from({ length: 9 }, (_, i) => `p${i}`);
    const many = ids.map((id, i) => event(id, `2024-05-0${i + 1}T00:00:00.000Z`));
    const view = effectiveNode(
      { ...node, sourceEventIds: ids, nameSourceEventIds: ['p0'] },
      [fact({ id: 'f1', key: 'k', value: 'v', sourceEventIds: ['p8', 'tie'] })],
      [],
      [...many, event('tie', '2024-05-09T00:00:00.000Z')],
    );
    expect(view?.provenanceEventIds).toEqual(['p8', 'tie', 'p7', 'p6', 'p5', 'p4']);
  });

  it('classifies facts: current needs an active source, history a visible one, archived never shows', () => {
    const view = effectiveNode(
      node,
      [
        fact({ id: 'a', key: 'a', value: 'only superseded source', sourceEventIds: ['e1'] }),
        fact({ id: 'b', key: 'b', value: 'archived', status: 'archived' }),
        fact({
          id: 'c',
          key: 'c',
          value: 'forgotten history',
          status: 'superseded',
          sourceEventIds: ['ef'],
        }),
        fact({ id: 'd', key: 'd', value: 'archived source', sourceEventIds: ['ea'] }),
        fact({ id: 'e', key: 'e', value: 'unknown source', sourceEventIds: ['e-unknown'] }),
        fact({ id: 'f', key: 'f', value: 'other node', nodeId: 'node_bob' }),
      ],
      [],
      events,
    );
    expect(view?.currentFacts).toEqual([]);
    expect(view?.historicalFacts).toEqual([]);
  });

  it('shows current and historical edges touching the node, in either direction', () => {
    const edge = (fields: Partial<GraphEdge> & Pick<GraphEdge, 'id'>): GraphEdge => ({
      fromId: 'node_ann',
      toId: 'node_x',
      relation: 'works on',
      status: 'active',
      confidence: 0.8,
      sourceEventIds: ['e2'],
      validFrom: T2,
      validTo: null,
      ...fields,
    });
    const view = effectiveNode(
      node,
      [],
      [
        edge({ id: 'out' }),
        edge({ id: 'in', fromId: 'node_x', toId: 'node_ann', relation: 'owned by' }),
        edge({ id: 'old', status: 'superseded', sourceEventIds: ['e1', 'ef'], toId: 'node_y' }),
        edge({ id: 'gone', status: 'superseded', sourceEventIds: ['ef'] }),
        edge({ id: 'elsewhere', fromId: 'node_x', toId: 'node_y' }),
      ],
      events,
    );
    expect(view?.currentEdges.map((e) => e.id)).toEqual(['in', 'out']);
    expect(view?.historicalEdges.map((e) => [e.id, e.citedEventIds])).toEqual([['old', ['e1']]]);
  });

  it('shows only visible, proven aliases and tags', () => {
    const view = effectiveNode(node, [], [], events);
    expect(view?.aliases).toEqual(['Annie']);
    expect(view?.tags).toEqual(['engineer']);
    expect(view?.provenanceEventIds).toEqual(['e1']);
  });

  it.each([
    ['all sources forgotten', { sourceEventIds: ['ef'] }],
    ['no described source', { sourceEventIds: ['e-unknown'] }],
    ['archived', { status: 'archived' as const }],
    ['superseded', { status: 'superseded' as const }],
  ])('hides a node that is %s', (_, fields) => {
    expect(effectiveNode({ ...node, ...fields }, [], [], events)).toBeNull();
  });

  it('keeps a disputed node visible', () => {
    expect(effectiveNode({ ...node, status: 'disputed' }, [], [], events)?.status).toBe('disputed');
  });
});
