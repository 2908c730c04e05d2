import { describe, expect, it } from 'vitest';
import { bm25Rank, docTermFrequencies } from '../retrieval/bm25.ts';
import { event } from './graph.fixtures.ts';
import { effectiveNode } from './graph-effective.ts';
import {
  graphCardState,
  graphNodeSearchFields,
  graphSearchView,
  graphTimeline,
  matchGraphNode,
  type GraphSearchEdge,
  type GraphSearchFact,
  type GraphSearchView,
} from './graph-match.ts';
import type { GraphEdge, GraphFact, GraphNode } from './graph-types.ts';

type View = GraphSearchView<GraphSearchFact, GraphSearchEdge>;

function view(fields: Partial<View> & Pick<View, 'name'>): View {
  return {
    id: `node_${fields.name}`,
    type: 'person',
    aliases: [],
    tags: [],
    currentFacts: [],
    historicalFacts: [],
    currentEdges: [],
    historicalEdges: [],
    ...fields,
  };
}

const fact = (id: string, key: string, value: string | string[]): GraphSearchFact => ({
  id,
  key,
  value,
});
const edge = (
  id: string,
  relation: string,
  endpointName: string,
  direction: 'out' | 'in' = 'out',
): GraphSearchEdge => ({
  id,
  relation,
  endpointId: `node_${endpointName}`,
  endpointName,
  direction,
});

const ids = (xs: readonly { id: string }[]) => xs.map((x) => x.id);

describe('matchGraphNode: the MM-RET-5 graph acceptance vector', () => {
  const zh = view({
    name: '李明',
    currentFacts: [fact('f_b', 'company', 'B公司')],
    historicalFacts: [fact('f_a', 'company', 'A公司')],
  });
  const en = view({
    name: 'Li Ming',
    currentFacts: [fact('f_beta', 'company', 'BetaCorp')],
    historicalFacts: [fact('f_alpha', 'company', 'AlphaCorp')],
    currentEdges: [edge('e_works', 'works_at', 'BetaCorp')],
  });

  it.each([
    ['B公司', 'current', ['f_b']],
    ['A公司', 'historical', ['f_a']],
    ['A公司 B公司', 'both', ['f_b', 'f_a']],
  ])('fact company with A公司 superseded, B公司 active: %s → %s', (query, type, facts) => {
    const match = matchGraphNode(query, zh);
    expect(match?.matchType).toBe(type);
    expect(ids(match?.matchedFacts ?? [])).toEqual(facts);
  });

  it.each([
    ['BetaCorp', 'current', ['f_beta']],
    ['AlphaCorp', 'historical', ['f_alpha']],
    ['AlphaCorp BetaCorp', 'both', ['f_beta', 'f_alpha']],
  ])('the same holds for AlphaCorp/BetaCorp: %s → %s', (query, type, facts) => {
    const match = matchGraphNode(query, { ...en, currentEdges: [] });
    expect(match?.matchType).toBe(type);
    expect(ids(match?.matchedFacts ?? [])).toEqual(facts);
  });

  it('"company BetaCorp" matches only the company fact, restricted to that key', () => {
    const match = matchGraphNode('company BetaCorp', en);
    expect(ids(match?.matchedFacts ?? [])).toEqual(['f_beta']);
    expect(match?.restrictedToKeys).toEqual(['company']);
    expect(match?.matchType).toBe('current');
    expect(match?.matchReason).toContain('restricted to key company');
    expect(match?.matchReason).toContain('current fact company: BetaCorp');
  });

  it('`works_at` → no result: relation text alone never matches', () => {
    expect(matchGraphNode('works_at', en)).toBeNull();
    // …although the relation is in the BM25 document (weight 1), so it is a BM25 candidate.
    const doc = { id: en.id, fields: graphNodeSearchFields(en) };
    expect(bm25Rank('works_at', [doc]).map((r) => r.id)).toEqual([en.id]);
  });

  it('a Chinese sentence query matches a value it mentions, not its lookalike', () => {
    const match = matchGraphNode('李明现在在B公司工作吗', zh);
    expect(match?.matchedFields).toEqual(['name', 'currentFact']);
    expect(ids(match?.matchedFacts ?? [])).toEqual(['f_b']);
    expect(match?.matchType).toBe('current');
  });
});

describe('matchGraphNode: channels', () => {
  const x = view({
    name: 'X',
    type: 'project',
    aliases: ['Project X'],
    tags: ['build'],
    currentFacts: [fact('f_ci', 'ci', 'pending verification')],
    currentEdges: [edge('e_pnpm', 'uses', 'pnpm')],
    historicalEdges: [edge('e_npm', 'uses', 'npm')],
  });

  it('a current endpoint → current; a historical endpoint → historical', () => {
    const pnpm = matchGraphNode('what does X use now? pnpm', x);
    expect(pnpm?.matchedFields).toEqual(['name', 'alias', 'currentEndpoint']);
    expect(pnpm?.matchType).toBe('current');
    expect(ids(pnpm?.matchedEdges ?? [])).toEqual(['e_pnpm']);
    expect(pnpm?.matchReason).toContain('current edge X –uses→ pnpm');
    const npm = matchGraphNode('npm', x);
    expect(npm?.matchType).toBe('historical');
    expect(npm?.matchedFields).toEqual(['historicalEndpoint']);
    expect(ids(npm?.matchedEdges ?? [])).toEqual(['e_npm']);
  });

  it('a word inside a fact value matches it; an incoming edge reads from the other end', () => {
    const match = matchGraphNode('pending', x);
    expect(match?.matchedFields).toEqual(['currentFact']);
    const tool = view({
      name: 'pnpm',
      type: 'tool',
      currentEdges: [edge('e_pnpm', 'uses', 'X', 'in')],
    });
    expect(matchGraphNode('X', tool)?.matchReason).toContain('current edge X –uses→ pnpm');
  });

  it('only a relation word, or nothing at all → null', () => {
    expect(matchGraphNode('uses', x)).toBeNull();
    expect(matchGraphNode('zebra', x)).toBeNull();
    expect(matchGraphNode('  ?! ', x)).toBeNull();
  });

  it('metadata alone (alias, tag, type) is a current match', () => {
    expect(matchGraphNode('build', x)).toMatchObject({
      matchType: 'current',
      matchedFields: ['tag'],
    });
    expect(matchGraphNode('project', x)).toMatchObject({
      matchType: 'current',
      matchedFields: ['alias', 'type'],
    });
  });

  it('a list value matches when one item does', () => {
    const v = view({ name: 'Ann', currentFacts: [fact('f_l', 'languages', ['Rust', 'Go'])] });
    expect(ids(matchGraphNode('go', v)?.matchedFacts ?? [])).toEqual(['f_l']);
  });
});

describe('matchGraphNode: a query word equal to a fact key restricts matching to its values', () => {
  const acme = view({
    name: 'Acme',
    type: 'organization',
    currentFacts: [
      fact('f_loc', 'location', 'Berlin'),
      fact('f_founder', 'founder', 'Acme family of Munich'),
      fact('f_plan', 'office_plan', 'Munich'),
    ],
  });

  it('"location of Acme": only location values count as a fact match', () => {
    const match = matchGraphNode('location of Acme', acme);
    expect(match?.matchedFacts).toEqual([]);
    expect(match?.matchedFields).toEqual(['name']);
    expect(match?.restrictedToKeys).toEqual(['location']);
    // Without the key word, the founder value (which mentions Acme) is a fact match.
    expect(ids(matchGraphNode('of Acme', acme)?.matchedFacts ?? [])).toEqual(['f_founder']);
  });

  it('a value of another key does not match once a key is named; the named key’s value does', () => {
    expect(matchGraphNode('location Munich', acme)).toBeNull();
    expect(ids(matchGraphNode('Munich', acme)?.matchedFacts ?? [])).toEqual([
      'f_founder',
      'f_plan',
    ]);
    expect(ids(matchGraphNode('location Berlin', acme)?.matchedFacts ?? [])).toEqual(['f_loc']);
    expect(ids(matchGraphNode('office_plan munich', acme)?.matchedFacts ?? [])).toEqual(['f_plan']);
  });

  it('a query of key words only matches every fact of those keys, current and historical', () => {
    const v = view({
      name: 'Li',
      currentFacts: [fact('f_b', 'company', 'BetaCorp')],
      historicalFacts: [fact('f_a', 'company', 'AlphaCorp')],
    });
    const match = matchGraphNode('company?', v);
    expect(match?.matchType).toBe('both');
    expect(ids(match?.matchedFacts ?? [])).toEqual(['f_b', 'f_a']);
    expect(match?.matchedFields).toEqual(['currentFact', 'historicalFact']);
  });

  it('a word that is a key only on another node is ordinary content', () => {
    const other = view({ name: 'Location Scout', currentFacts: [fact('f', 'city', 'Rome')] });
    expect(matchGraphNode('location', other)?.matchedFields).toEqual(['name']);
  });
});

describe('graph search document (MM-RET-5 weights)', () => {
  it('weights name 6, aliases 5, tags 5, type 2, facts 4/2 with keys, endpoints 4/2, relations 1', () => {
    const v = view({
      name: 'X',
      type: 'project',
      aliases: ['Xproj'],
      tags: ['build'],
      currentFacts: [fact('f1', 'ci', 'pending')],
      historicalFacts: [fact('f2', 'ci', 'failing')],
      currentEdges: [edge('e1', 'uses', 'pnpm')],
      historicalEdges: [edge('e2', 'uses', 'npm')],
    });
    const { terms, length } = docTermFrequencies(graphNodeSearchFields(v));
    // Each English word is indexed with its Porter2 stem beside it, at the same weight.
    expect(Object.fromEntries(terms)).toEqual({
      'word:x': 6,
      'stem:x': 6,
      'word:xproj': 5,
      'stem:xproj': 5,
      'word:build': 5,
      'stem:build': 5,
      'word:project': 2,
      'stem:project': 2,
      'word:ci': 4 + 2,
      'stem:ci': 4 + 2,
      'word:pending': 4,
      'stem:pend': 4,
      'word:failing': 2,
      'stem:fail': 2,
      'word:pnpm': 4,
      'stem:pnpm': 4,
      'word:npm': 2,
      'stem:npm': 2,
      'word:uses': 2,
      'stem:use': 2,
    });
    expect(length).toBe(2 * (6 + 5 + 5 + 2 + 8 + 4 + 4 + 2 + 2));
  });
});

describe('graphSearchView', () => {
  const T1 = '2024-05-01T09:00:00.000Z';
  const T2 = '2024-05-06T09:00:00.000Z';
  const node: GraphNode = {
    id: 'node_x',
    name: 'X',
    type: 'project',
    aliases: [],
    tags: [],
    status: 'active',
    confidence: 0.8,
    sourceEventIds: ['e1', 'e2'],
    nameSourceEventIds: ['e1'],
  };
  const edges: GraphEdge[] = [
    {
      id: 'edge_1',
      fromId: 'node_x',
      toId: 'node_npm',
      relation: 'uses',
      status: 'superseded',
      confidence: 0.8,
      sourceEventIds: ['e1'],
      validFrom: T1,
      validTo: T2,
    },
    {
      id: 'edge_2',
      fromId: 'node_x',
      toId: 'node_pnpm',
      relation: 'uses',
      status: 'active',
      confidence: 0.8,
      sourceEventIds: ['e2'],
      validFrom: T2,
      validTo: null,
    },
    {
      id: 'edge_3',
      fromId: 'node_ann',
      toId: 'node_x',
      relation: 'participates_in',
      status: 'active',
      confidence: 0.8,
      sourceEventIds: ['e2'],
      validFrom: T2,
      validTo: null,
    },
  ];
  const facts: GraphFact[] = [];
  const events = [event('e1', T1, 'superseded'), event('e2', T2)];
  const names = new Map([
    ['node_npm', 'npm'],
    ['node_pnpm', 'pnpm'],
    ['node_ann', 'Ann'],
  ]);

  it('resolves endpoint names and directions from the effective view', () => {
    const effective = effectiveNode(node, facts, edges, events)!;
    const v = graphSearchView(effective, names);
    expect(v.currentEdges.map((e) => [e.id, e.direction, e.endpointName])).toEqual([
      ['edge_3', 'in', 'Ann'],
      ['edge_2', 'out', 'pnpm'],
    ]);
    expect(v.historicalEdges.map((e) => [e.id, e.endpointName])).toEqual([['edge_1', 'npm']]);
    expect(matchGraphNode('Ann', v)?.matchReason).toBe(
      'matched current edge Ann –participates_in→ X',
    );
  });

  it('an unknown endpoint has no name and never matches', () => {
    const effective = effectiveNode(node, facts, edges, events)!;
    const v = graphSearchView(effective, new Map());
    expect(v.currentEdges.every((e) => e.endpointName === '')).toBe(true);
    expect(matchGraphNode('pnpm', v)).toBeNull();
  });
});

describe('card helpers', () => {
  it('currentState renders key: value; … with [disputed], cut to 500 code points', () => {
    expect(
      graphCardState([
        { id: 'a', key: 'ci', value: 'pending verification' },
        { id: 'b', key: 'langs', value: ['Rust', 'Go'], disputed: true },
      ]),
    ).toBe('ci: pending verification; langs: Rust, Go [disputed]');
    const long = graphCardState([{ id: 'a', key: 'k', value: '中'.repeat(600) }]);
    expect(Array.from(long)).toHaveLength(500);
  });

  it('the timeline is in time order, ties by id, at most 6', () => {
    const entries = ['e5', 'e1', 'e3', 'e2', 'e4', 'e6', 'e7'].map((id, i) => ({
      eventId: id,
      title: id,
      sourceTime: i === 0 ? '2024-05-01' : `2024-05-0${(i % 3) + 2}T09:00:00Z`,
    }));
    expect(graphTimeline(entries).map((e) => e.eventId)).toEqual([
      'e5',
      'e2',
      'e7',
      'e1',
      'e4',
      'e3',
    ]);
  });
});
