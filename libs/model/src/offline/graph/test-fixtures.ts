import type { GraphContextNode, GraphProposal, GraphSourceEvent } from '../../graph.schema.ts';

/** Builders shared by the graph proposer specs. Texts are written for these tests. */
export function graphEvent(
  id: string,
  title: string,
  summary: string,
  extra: Partial<GraphSourceEvent> = {},
): GraphSourceEvent {
  return {
    id,
    title,
    summary,
    tags: [],
    scope: 'project',
    eventType: 'other',
    participants: [],
    sourceTime: '2024-05-06T09:00:00Z',
    ...extra,
  };
}

/**
 * Scenario S1 as extraction would hand it over. What the proposer relies on: E1's title names
 * the project ("Project X …"); E2 and E3 say only "we" / "CI" and carry the tag `x`, which
 * ties them to the project E1 named. Without a named project anywhere, E2 gets no edge.
 */
export const S1_EVENTS: GraphSourceEvent[] = [
  graphEvent('evt_e1', 'Project X uses npm', 'This project uses npm.', {
    tags: ['x', 'npm'],
    eventType: 'decision',
    participants: ['Dana'],
    sourceTime: '2024-05-01T10:00:00Z',
  }),
  graphEvent(
    'evt_e2',
    'Switched to pnpm',
    'We switched to pnpm; installs are faster and it suits our multi-package layout.',
    { tags: ['x', 'pnpm'], eventType: 'change', participants: ['Dana'] },
  ),
  graphEvent(
    'evt_e3',
    'CI pending verification',
    'CI still has to be verified after the migration.',
    { tags: ['x', 'ci'] },
  ),
  graphEvent('evt_e4', 'Prototype planned for next week', 'We finish the prototype next week.', {
    tags: ['x', 'prototype'],
    eventType: 'plan',
    participants: ['Dana'],
  }),
];

export function contextNode(
  id: string,
  name: string,
  type: GraphContextNode['type'],
  aliases: string[] = [],
): GraphContextNode {
  return { id, name, type, aliases, currentFacts: [] };
}

export function nodeNamed(proposal: GraphProposal, type: string, name: string) {
  return proposal.nodes.find((n) => n.type === type && n.name === name);
}

/** Edges as `from –relation→ to` by node name, with their sources, for readable assertions. */
export function edgeLines(proposal: GraphProposal): string[] {
  const nameOf = (ref: string) => proposal.nodes.find((n) => n.ref === ref)?.name ?? `?${ref}`;
  return proposal.edges.map(
    (e) =>
      `${nameOf(e.fromRef)} -${e.relation}-> ${nameOf(e.toRef)} [${e.sourceEventIds.join(',')}]`,
  );
}

export function citedIds(proposal: GraphProposal): string[] {
  return [
    ...proposal.nodes.flatMap((n) => [
      ...n.nameSourceEventIds,
      ...n.sourceEventIds,
      ...n.aliases.flatMap((a) => a.sourceEventIds),
      ...n.tags.flatMap((t) => t.sourceEventIds),
      ...(n.state?.sourceEventIds ?? []),
      ...n.facts.flatMap((f) => f.sourceEventIds),
    ]),
    ...proposal.edges.flatMap((e) => e.sourceEventIds),
  ];
}
