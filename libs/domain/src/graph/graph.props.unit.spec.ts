import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EMPTY_GRAPH, event } from './graph.fixtures.ts';
import { effectiveNode } from './graph-effective.ts';
import { normaliseEntityName } from './graph-limits.ts';
import { planGraphUpdate } from './graph-planner.ts';
import { applyGraphOperations } from './graph-reducer.ts';
import type {
  GraphIdPrefix,
  GraphProposalLike,
  GraphSnapshot,
  SourceEventInfo,
  SourceEventStatus,
} from './graph-types.ts';

const EVENT_IDS = ['e0', 'e1', 'e2', 'e3', 'e4'];
const TIMES = ['2024-05-01T00:00:00.000Z', '2024-05-03T00:00:00.000Z', '2024-05-06T00:00:00.000Z'];
const REFS = ['r0', 'r1', 'r2', 'node_0_1', 'node_1_1'];

// Mostly valid sources while planning, so most plans succeed and build up a graph to supersede;
// the final statuses forget far more, to test what the view cites.
const planStatus = fc.oneof(
  { weight: 12, arbitrary: fc.constant<SourceEventStatus>('active') },
  { weight: 4, arbitrary: fc.constant<SourceEventStatus>('superseded') },
  { weight: 1, arbitrary: fc.constantFrom<SourceEventStatus>('forgotten', 'archived') },
);
const status = fc.constantFrom<SourceEventStatus>('active', 'superseded', 'forgotten', 'archived');
const sources = fc.subarray(EVENT_IDS, { minLength: 1, maxLength: 2 });
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const proposedFact = fc.record({
  key: fc.constantFrom('state', 'company', 'Company', 'ci'),
  value: fc.constantFrom<string | string[]>('A公司', 'B公司', 'pending', ['a', 'b']),
  sourceEventIds: sources,
  validFrom: maybe(fc.constantFrom(...TIMES, 'soon')),
  confidence: maybe(fc.constantFrom(0.3, 0.5, 0.9)),
});

const proposal: fc.Arbitrary<GraphProposalLike> = fc.record({
  nodes: fc.array(
    fc.record({
      ref: fc.constantFrom(...REFS),
      name: fc.constantFrom('Alpha Corp', 'alpha_corp', 'AlphaCorp', 'pnpm', 'npm'),
      type: fc.constantFrom('organization' as const, 'tool' as const),
      nameSourceEventIds: sources,
      aliases: fc.array(
        fc.record({ value: fc.constantFrom('AC', 'Alpha'), sourceEventIds: sources }),
        {
          maxLength: 2,
        },
      ),
      tags: fc.constant([]),
      state: maybe(proposedFact.map(({ key: _key, ...rest }) => rest)),
      facts: fc.array(proposedFact, { maxLength: 4 }),
      sourceEventIds: sources,
      confidence: maybe(fc.double({ min: -1, max: 2, noNaN: true })),
    }),
    { maxLength: 4 },
  ),
  edges: fc.array(
    fc.record({
      fromRef: fc.constantFrom(...REFS),
      toRef: fc.constantFrom(...REFS),
      relation: fc.constantFrom('uses', 'depends_on', 'depends on'),
      sourceEventIds: sources,
      validFrom: maybe(fc.constantFrom(...TIMES)),
    }),
    { maxLength: 5 },
  ),
});

const batch = fc.record({
  statuses: fc.array(planStatus, { minLength: EVENT_IDS.length, maxLength: EVENT_IDS.length }),
  times: fc.array(fc.constantFrom(...TIMES), {
    minLength: EVENT_IDS.length,
    maxLength: EVENT_IDS.length,
  }),
  batchEventIds: fc.oneof(
    { weight: 3, arbitrary: fc.constant(EVENT_IDS) },
    { weight: 1, arbitrary: fc.subarray(EVENT_IDS) },
  ),
  proposal,
});

const eventsOf = (statuses: SourceEventStatus[], times: string[]): SourceEventInfo[] =>
  EVENT_IDS.map((id, i) => event(id, times[i] ?? TIMES[0] ?? '', statuses[i] ?? 'active'));

/** Ids scoped by batch, so two batches never mint the same id and a re-plan mints the same ones. */
const idsFor = (batchIndex: number) => {
  const counts: Record<GraphIdPrefix, number> = { node: 0, gfact: 0, edge: 0 };
  return (prefix: GraphIdPrefix) => `${prefix}_${batchIndex}_${(counts[prefix] += 1)}`;
};

function currentDuplicates(graph: GraphSnapshot): string[] {
  const seen = new Set<string>();
  const duplicates: string[] = [];
  const note = (key: string) => (seen.has(key) ? duplicates.push(key) : seen.add(key));
  for (const fact of graph.facts) {
    if (fact.status === 'active' || fact.status === 'disputed') {
      note(`fact ${fact.nodeId} ${normaliseEntityName(fact.key)}`);
    }
  }
  for (const edge of graph.edges) {
    if (edge.status === 'active' || edge.status === 'disputed') {
      note(`edge ${edge.fromId} ${normaliseEntityName(edge.relation)}`);
    }
  }
  return duplicates;
}

describe('graph planning properties', () => {
  it('never leaves two current facts of one key on a node, is deterministic, and never cites a forgotten event', () => {
    fc.assert(
      fc.property(
        fc.array(batch, { minLength: 1, maxLength: 4 }),
        fc.array(status, { minLength: EVENT_IDS.length, maxLength: EVENT_IDS.length }),
        (batches, finalStatuses) => {
          let graph = EMPTY_GRAPH;
          let times = TIMES;
          batches.forEach((b, index) => {
            const input = {
              snapshot: graph,
              proposal: b.proposal,
              batchEventIds: b.batchEventIds,
              events: eventsOf(b.statuses, b.times),
            };
            const plan = planGraphUpdate({ ...input, newId: idsFor(index) });
            expect(planGraphUpdate({ ...input, newId: idsFor(index) })).toEqual(plan);
            if (!plan.ok) return;
            graph = applyGraphOperations(graph, plan.operations);
            expect(currentDuplicates(graph)).toEqual([]);
            times = b.times;
          });
          const events = eventsOf(finalStatuses, times);
          const forgotten = new Set(
            events.filter((e) => e.status === 'forgotten').map((e) => e.id),
          );
          for (const node of graph.nodes) {
            const view = effectiveNode(node, graph.facts, graph.edges, events);
            if (!view) continue;
            const cited = [
              ...view.provenanceEventIds,
              ...[...view.currentFacts, ...view.historicalFacts].flatMap((f) => f.citedEventIds),
              ...[...view.currentEdges, ...view.historicalEdges].flatMap((e) => e.citedEventIds),
            ];
            expect(cited.filter((id) => forgotten.has(id))).toEqual([]);
            expect(view.provenanceEventIds.length).toBeLessThanOrEqual(6);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
