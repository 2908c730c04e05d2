import { resolveEntities } from './entity-resolution.ts';
import {
  edgeGroups,
  factGroups,
  type ClaimGroup,
  type EdgeClaim,
  type FactClaim,
} from './graph-claims.ts';
import { compareStrings } from './graph-limits.ts';
import { findForgottenSource, sourceContext } from './graph-sources.ts';
import { planTimeline, type TimelineRef, type TimelineStep } from './graph-timeline.ts';
import type { GraphOperation, GraphPlan, PlanGraphInput } from './graph-types.ts';

/*
 * decide(proposal, snapshot) -> operations. The consolidator records the operations; the projector
 * applies them; nothing here reads a clock or mints a random id, so replaying a recorded proposal
 * against the same snapshot with the same id source yields the same operations.
 */

export function planGraphUpdate(input: PlanGraphInput): GraphPlan {
  const { snapshot, proposal, newId } = input;
  const ctx = sourceContext(input.batchEventIds, input.events);
  const forgotten = findForgottenSource(proposal, ctx);
  if (forgotten !== null) return { ok: false, error: forgotten };

  const resolution = resolveEntities(snapshot.nodes, proposal.nodes, ctx, newId);
  if (!resolution.ok) return resolution;

  const warnings = [...resolution.warnings];
  const backing = new Map<string, Set<string>>(input.batchEventIds.map((id) => [id, new Set()]));
  const back = (ids: readonly string[], nodeId: string) => {
    for (const id of ids) backing.get(id)?.add(nodeId);
  };
  for (const { proposal: node, nodeId } of resolution.resolved) {
    back(node.sourceEventIds, nodeId);
    back(node.nameSourceEventIds, nodeId);
  }
  const sink = { ctx, warnings, back };

  const liveNodes = new Map(
    snapshot.nodes.filter((node) => node.status !== 'archived').map((node) => [node.id, node.id]),
  );
  const resolveRef = (ref: string) => resolution.refs.get(ref) ?? liveNodes.get(ref);

  const operations: GraphOperation[] = [...resolution.operations];
  for (const group of factGroups(resolution.resolved, snapshot.facts, sink)) {
    operations.push(...factOperations(group, warnings, () => newId('gfact')));
  }
  for (const group of edgeGroups(proposal.edges, resolveRef, snapshot.edges, sink)) {
    operations.push(...edgeOperations(group, warnings, () => newId('edge')));
  }

  const eventNodeIds: Record<string, string[]> = {};
  for (const [eventId, nodeIds] of backing) {
    eventNodeIds[eventId] = [...nodeIds].sort(compareStrings);
  }
  return { ok: true, operations, warnings, eventNodeIds };
}

/** Ids are minted only for claims that survive, in operation order, so ids stay dense and stable. */
function idsFor(mint: () => string) {
  const minted = new Map<number, string>();
  return {
    add(claim: number): string {
      const id = mint();
      minted.set(claim, id);
      return id;
    },
    of(ref: TimelineRef): string {
      if ('existing' in ref) return ref.existing;
      const id = minted.get(ref.claim);
      if (id === undefined) throw new Error(`graph timeline referenced claim ${ref.claim} first`);
      return id;
    },
  };
}

function timelineSteps<C extends FactClaim | EdgeClaim>(
  group: ClaimGroup<C>,
  disputes: boolean,
  warnings: string[],
): TimelineStep[] {
  const plan = planTimeline(group.records, group.claims, { disputes });
  warnings.push(...plan.warnings);
  return plan.steps;
}

function factOperations(
  group: ClaimGroup<FactClaim>,
  warnings: string[],
  mint: () => string,
): GraphOperation[] {
  const ids = idsFor(mint);
  return timelineSteps(group, true, warnings).flatMap((step): GraphOperation[] => {
    switch (step.kind) {
      case 'add': {
        const claim = group.claims[step.claim];
        if (!claim) return [];
        const { nodeId, key, value, confidence, sourceEventIds, validFrom } = claim;
        const fact = { nodeId, key, value, confidence, sourceEventIds, validFrom, validTo: null };
        return [{ op: 'fact.add', fact: { id: ids.add(step.claim), status: 'active', ...fact } }];
      }
      case 'supersede':
        return [
          {
            op: 'fact.supersede',
            factId: ids.of(step.target),
            validTo: step.validTo,
            supersededBy: ids.of(step.by),
          },
        ];
      case 'dispute':
        return [{ op: 'fact.dispute', factId: ids.of(step.target) }];
      default:
        return assertNever(step);
    }
  });
}

function edgeOperations(
  group: ClaimGroup<EdgeClaim>,
  warnings: string[],
  mint: () => string,
): GraphOperation[] {
  const ids = idsFor(mint);
  return timelineSteps(group, false, warnings).flatMap((step): GraphOperation[] => {
    switch (step.kind) {
      case 'add': {
        const claim = group.claims[step.claim];
        if (!claim) return [];
        const { fromId, toId, relation, confidence, sourceEventIds, validFrom } = claim;
        const edge = {
          fromId,
          toId,
          relation,
          confidence,
          sourceEventIds,
          validFrom,
          validTo: null,
        };
        return [{ op: 'edge.add', edge: { id: ids.add(step.claim), status: 'active', ...edge } }];
      }
      case 'supersede':
        return [
          {
            op: 'edge.supersede',
            edgeId: ids.of(step.target),
            validTo: step.validTo,
            supersededBy: ids.of(step.by),
          },
        ];
      case 'dispute':
        // Edges carry no dispute operation; the timeline is asked not to produce one.
        throw new Error('edge timelines never dispute');
      default:
        return assertNever(step);
    }
  });
}

function assertNever(value: never): never {
  throw new Error(`unhandled graph timeline step ${JSON.stringify(value)}`);
}
