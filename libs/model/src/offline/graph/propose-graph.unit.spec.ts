import { describe, expect, it } from 'vitest';
import { GraphProposal, type GraphProposalInput } from '../../graph.schema.ts';
import { proposeGraphOffline } from './propose-graph.ts';
import {
  citedIds,
  contextNode,
  edgeLines,
  graphEvent,
  nodeNamed,
  S1_EVENTS,
} from './test-fixtures.ts';

const propose = (input: Partial<GraphProposalInput>) =>
  proposeGraphOffline({ events: [], nodes: [], edges: [], ...input });

describe('offline graph proposer: scenario S1 (MM-GRF-1/3/7)', () => {
  const proposal = propose({ events: S1_EVENTS });

  it('proposes project X, tools npm and pnpm, and both uses edges with their own sources', () => {
    expect(nodeNamed(proposal, 'project', 'X')?.nameSourceEventIds).toEqual([
      'evt_e1',
      'evt_e2',
      'evt_e3',
      'evt_e4',
    ]);
    expect(nodeNamed(proposal, 'tool', 'npm')?.nameSourceEventIds).toEqual(['evt_e1']);
    expect(nodeNamed(proposal, 'tool', 'pnpm')?.nameSourceEventIds).toEqual(['evt_e2']);
    expect(edgeLines(proposal)).toEqual([
      'Dana -participates_in-> X [evt_e1,evt_e2,evt_e4]',
      'X -uses-> npm [evt_e1]',
      'X -uses-> pnpm [evt_e2]',
    ]);
  });

  it('records CI as pending verification from E3, never as passed', () => {
    const ci = nodeNamed(proposal, 'tool', 'CI');
    expect(ci?.facts).toEqual([
      { key: 'state', value: 'pending verification', sourceEventIds: ['evt_e3'] },
    ]);
    expect(JSON.stringify(proposal)).not.toMatch(/pass|green|done|progress/iu);
  });

  it('reads nothing into the plan: no prototype node, no fact, no owner', () => {
    const facts = proposal.nodes.flatMap((n) => n.facts);
    expect(facts).toHaveLength(1);
    expect(proposal.nodes.map((n) => n.name)).toEqual(['Dana', 'X', 'npm', 'pnpm', 'CI']);
  });

  it('is already a valid GraphProposal with nothing left for defaults to fill', () => {
    expect(GraphProposal.parse(proposal)).toEqual(proposal);
    expect(proposal.reason).toContain('offline-graph@2');
  });

  it('reuses existing nodes by normalised name and type instead of duplicating them', () => {
    const result = propose({
      events: [
        graphEvent('evt_e1', 'npm in use', 'This project uses npm.', { tags: ['x'] }),
        ...S1_EVENTS.slice(1),
      ],
      nodes: [
        contextNode('node_x', 'Project X', 'project', ['X']),
        contextNode('node_npm', 'NPM', 'tool'),
        contextNode('node_ci_place', 'CI', 'place'),
      ],
    });
    expect(result.nodes.filter((n) => n.type === 'project')).toMatchObject([
      { ref: 'node_x', name: 'X', nameSourceEventIds: ['evt_e1', 'evt_e2', 'evt_e3', 'evt_e4'] },
    ]);
    expect(result.edges).toContainEqual(
      expect.objectContaining({ fromRef: 'node_x', toRef: 'node_npm', relation: 'uses' }),
    );
    expect(nodeNamed(result, 'tool', 'NPM')?.ref).toBe('node_npm');
    // Same name, other type: the place "CI" is not the tool CI (MM-GRF-6).
    expect(nodeNamed(result, 'tool', 'CI')?.ref).toBe('tool:ci');
  });

  it('proposes no uses edge when no project is named anywhere', () => {
    const result = propose({
      events: [graphEvent('e2', 'Switched to pnpm', 'We switched to pnpm.')],
    });
    expect(result.nodes.map((n) => `${n.type}:${n.name}`)).toEqual(['tool:pnpm']);
    expect(result.edges).toEqual([]);
    expect(result.reason).toContain('left out 1 edge or state claims');
  });
});

describe('offline graph proposer: people, organizations, places', () => {
  it('reads 李明 在 B公司 工作 as person –works_at→ organization', () => {
    const result = propose({
      events: [
        graphEvent('evt_zh', '李明在B公司工作', '李明 在 B公司 工作。', {
          scope: 'user',
          participants: ['李明'],
        }),
      ],
    });
    expect(result.nodes.map((n) => `${n.type}:${n.name}`)).toEqual([
      'person:李明',
      'organization:B公司',
    ]);
    expect(edgeLines(result)).toEqual(['李明 -works_at-> B公司 [evt_zh]']);
  });

  it('reads Chinese usage and residence cues', () => {
    const result = propose({
      events: [
        graphEvent('z1', '改用 pnpm', '好的，我们改用 pnpm。', { tags: ['项目X'] }),
        graphEvent('z2', '住在上海', '我住在上海。', { scope: 'user', participants: ['王芳'] }),
      ],
    });
    expect(edgeLines(result)).toEqual(['X -uses-> pnpm [z1]', '王芳 -lives_in-> 上海 [z2]']);
  });

  it('reads English work and residence cues only for a named or single first-person subject', () => {
    const result = propose({
      events: [
        graphEvent(
          'p1',
          'Dana at Alpha Corp',
          'Dana works at Alpha Corp. Dana lives in New York.',
          {
            scope: 'user',
            participants: ['Dana'],
          },
        ),
        graphEvent('p2', 'Move', 'I moved to Berlin.', { scope: 'user', participants: ['Jon'] }),
        graphEvent('p3', 'Move', 'I moved to Lisbon.', {
          scope: 'user',
          participants: ['Jon', 'Ana'],
        }),
      ],
    });
    expect(edgeLines(result)).toEqual([
      'Dana -works_at-> Alpha Corp [p1]',
      'Dana -lives_in-> New York [p1]',
      'Jon -lives_in-> Berlin [p2]',
    ]);
    expect(nodeNamed(result, 'place', 'Lisbon')?.sourceEventIds).toEqual(['p3']);
  });

  it('skips generic participants and repeated names', () => {
    const result = propose({
      events: [
        graphEvent('g', 'Chat', 'Nothing named.', {
          participants: ['user', 'assistant', ' Dana ', 'dana', ''],
        }),
      ],
    });
    expect(result.nodes.map((n) => n.name)).toEqual(['Dana']);
  });
});

describe('offline graph proposer: conservative', () => {
  it('invents no facts or edges from plans, negations, questions or past states', () => {
    const result = propose({
      events: [
        graphEvent('n1', 'Plans for X', 'We will switch to yarn next week in project X.'),
        graphEvent('n2', 'Not Bower', "Project X doesn't use Bower."),
        graphEvent('n3', 'Deno?', 'Should project X migrate to Deno?'),
        graphEvent('n4', 'CI', 'CI does not have to be verified. CI passed yesterday.'),
        graphEvent('n5', 'Old job', 'Dana used to work at Acme Inc.', {
          participants: ['Dana'],
          scope: 'user',
        }),
        graphEvent('n6', '计划', '我们打算改用 yarn。CI 还需要验证吗？', { tags: ['项目X'] }),
      ],
    });
    expect(result.edges).toEqual([]);
    expect(result.nodes.flatMap((n) => n.facts)).toEqual([]);
    expect(result.nodes.some((n) => n.name === 'Deno')).toBe(false);
  });

  it('cites only the ids of the given events', () => {
    const result = propose({
      events: S1_EVENTS,
      nodes: [contextNode('node_x', 'Project X', 'project')],
      edges: [{ fromId: 'node_x', toId: 'node_old', relation: 'uses' }],
    });
    const ids = new Set(S1_EVENTS.map((e) => e.id));
    expect(citedIds(result).every((id) => ids.has(id))).toBe(true);
    const refs = new Set(result.nodes.map((n) => n.ref));
    expect(result.edges.every((e) => refs.has(e.fromRef) && refs.has(e.toRef))).toBe(true);
  });

  it('is deterministic and leaves its input untouched', () => {
    const input = { events: S1_EVENTS, nodes: [contextNode('node_x', 'X', 'project')], edges: [] };
    const before = structuredClone(input);
    expect(proposeGraphOffline(input)).toEqual(proposeGraphOffline(structuredClone(input)));
    expect(input).toEqual(before);
  });

  it('ignores events whose id cannot be cited and repeated ids', () => {
    const result = propose({
      events: [
        graphEvent(' ', 'Project Y uses npm', 'Project Y uses npm.'),
        graphEvent('d', 'Project Z uses npm', 'Project Z uses npm.'),
        graphEvent('d', 'Project W uses npm', 'Project W uses npm.'),
      ],
    });
    expect(edgeLines(result)).toEqual(['Z -uses-> npm [d]']);
  });
});
