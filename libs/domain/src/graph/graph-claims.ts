import type { ResolvedNode } from './entity-resolution.ts';
import {
  canonicalUtc,
  clampConfidence,
  cutFactValue,
  cutText,
  factValueKey,
  GRAPH_LIMITS,
  normaliseEntityName,
} from './graph-limits.ts';
import type { SourceContext } from './graph-sources.ts';
import type { TimelineClaim, TimelineRecord } from './graph-timeline.ts';
import type {
  GraphEdge,
  GraphFact,
  GraphNode,
  GraphStatus,
  ProposedEdgeLike,
  ProposedFactLike,
} from './graph-types.ts';

/*
 * Turns proposed facts and edges into validated, cut claims grouped for MM-GRF-7 supersession.
 * Keys and relations group by their normalised form, so `works_at` and `works at` from two model
 * runs cannot both stay current.
 */

export interface FactClaim extends TimelineClaim {
  nodeId: string;
  key: string;
  value: string | string[];
  sourceEventIds: string[];
}

export interface EdgeClaim extends TimelineClaim {
  fromId: string;
  toId: string;
  relation: string;
  sourceEventIds: string[];
}

export interface ClaimGroup<C> {
  claims: C[];
  records: TimelineRecord[];
}

interface ClaimSink {
  ctx: SourceContext;
  warnings: string[];
  /** Records that `ids` back `nodeId`, for the participantNodeIds index. */
  back(ids: readonly string[], nodeId: string): void;
}

const isCurrent = (status: GraphStatus) => status === 'active' || status === 'disputed';
const groupKey = (id: string, name: string) => `${id}\u0000${normaliseEntityName(name)}`;

function claimValidFrom(proposed: string | undefined, ids: string[], label: string, s: ClaimSink) {
  if (proposed !== undefined && proposed.trim() !== '') {
    const canonical = canonicalUtc(proposed);
    if (canonical !== null) return canonical;
    s.warnings.push(`${label}: validFrom "${proposed}" is not UTC ISO-8601; source time used`);
  }
  return s.ctx.latestTime(ids);
}

function record(item: GraphFact | GraphEdge, sameAs: string, ctx: SourceContext): TimelineRecord {
  const known = item.sourceEventIds.every((id) => ctx.statusOf(id) !== undefined);
  return {
    id: item.id,
    sameAs,
    validFrom: item.validFrom,
    disputed: item.status === 'disputed',
    stale: item.sourceEventIds.length > 0 && known && !ctx.hasActive(item.sourceEventIds),
  };
}

export function factGroups(
  resolved: readonly ResolvedNode[],
  snapshotFacts: readonly GraphFact[],
  sink: ClaimSink,
): ClaimGroup<FactClaim>[] {
  const groups = new Map<string, ClaimGroup<FactClaim>>();
  for (const { proposal, nodeId, name } of resolved) {
    const state = proposal.state ? [{ ...proposal.state, key: 'state' }] : [];
    const proposedFacts: ProposedFactLike[] = [...state, ...proposal.facts];
    for (const fact of proposedFacts) {
      const key = cutText(fact.key, GRAPH_LIMITS.key);
      const label = `fact "${key || fact.key}" on node "${name}"`;
      const value = cutFactValue(fact.value);
      if (key === '' || value === null) {
        sink.warnings.push(`${label} dropped: empty key or value`);
        continue;
      }
      const verdict = sink.ctx.validate(fact.sourceEventIds);
      if (!verdict.ok) {
        sink.warnings.push(`${label} dropped: no valid sources (${verdict.reason})`);
        continue;
      }
      sink.back(verdict.ids, nodeId);
      const id = groupKey(nodeId, key);
      const group = groups.get(id) ?? {
        claims: [],
        records: snapshotFacts
          .filter(
            (f) => f.nodeId === nodeId && isCurrent(f.status) && groupKey(nodeId, f.key) === id,
          )
          .map((f) => record(f, factValueKey(f.value), sink.ctx)),
      };
      group.claims.push({
        nodeId,
        key,
        value,
        sourceEventIds: verdict.ids,
        sameAs: factValueKey(value),
        validFrom: claimValidFrom(fact.validFrom, verdict.ids, label, sink),
        confidence: clampConfidence(fact.confidence),
        hasActiveSource: sink.ctx.hasActive(verdict.ids),
        label,
      });
      groups.set(id, group);
    }
  }
  return [...groups.values()];
}

export function edgeGroups(
  proposed: readonly ProposedEdgeLike[],
  resolveRef: (ref: string) => GraphNode['id'] | undefined,
  snapshotEdges: readonly GraphEdge[],
  sink: ClaimSink,
): ClaimGroup<EdgeClaim>[] {
  const groups = new Map<string, ClaimGroup<EdgeClaim>>();
  for (const edge of proposed) {
    const relation = cutText(edge.relation, GRAPH_LIMITS.relation);
    const label = `edge ${edge.fromRef} -${relation || edge.relation}-> ${edge.toRef}`;
    const fromId = resolveRef(cutText(edge.fromRef, GRAPH_LIMITS.ref));
    const toId = resolveRef(cutText(edge.toRef, GRAPH_LIMITS.ref));
    if (fromId === undefined || toId === undefined) {
      sink.warnings.push(`${label} dropped: an endpoint does not resolve to a node`);
      continue;
    }
    if (relation === '') {
      sink.warnings.push(`${label} dropped: empty relation`);
      continue;
    }
    const verdict = sink.ctx.validate(edge.sourceEventIds);
    if (!verdict.ok) {
      sink.warnings.push(`${label} dropped: no valid sources (${verdict.reason})`);
      continue;
    }
    sink.back(verdict.ids, fromId);
    sink.back(verdict.ids, toId);
    const id = groupKey(fromId, relation);
    const group = groups.get(id) ?? {
      claims: [],
      records: snapshotEdges
        .filter(
          (e) => e.fromId === fromId && isCurrent(e.status) && groupKey(fromId, e.relation) === id,
        )
        .map((e) => record(e, e.toId, sink.ctx)),
    };
    group.claims.push({
      fromId,
      toId,
      relation,
      sourceEventIds: verdict.ids,
      sameAs: toId,
      validFrom: claimValidFrom(edge.validFrom, verdict.ids, label, sink),
      confidence: clampConfidence(edge.confidence),
      hasActiveSource: sink.ctx.hasActive(verdict.ids),
      label,
    });
    groups.set(id, group);
  }
  return [...groups.values()];
}
