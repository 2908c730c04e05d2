import { canonicalUtc, compareInstants, uniqueStrings } from './graph-limits.ts';
import type { GraphProposalLike, SourceEventInfo, SourceEventStatus } from './graph-types.ts';

/*
 * MM-GRF-4 source validity. A list is valid only as a whole: a model that cites one event outside
 * the claimed batch has not shown that the rest of its claim comes from the batch either.
 */

export type SourceVerdict = { ok: true; ids: string[] } | { ok: false; reason: string };

export interface SourceContext {
  statusOf(id: string): SourceEventStatus | undefined;
  validate(ids: readonly string[]): SourceVerdict;
  hasActive(ids: readonly string[]): boolean;
  /** The latest source time (MM-GRF-7 default `validFrom`), canonical when it parses. */
  latestTime(ids: readonly string[]): string | null;
}

export function sourceContext(
  batchEventIds: readonly string[],
  events: readonly SourceEventInfo[],
): SourceContext {
  const batch = new Set(batchEventIds);
  const byId = new Map(events.map((event) => [event.id, event]));
  const statusOf = (id: string) => byId.get(id)?.status;
  return {
    statusOf,
    validate(ids) {
      const unique = uniqueStrings(ids);
      if (unique.length === 0) return { ok: false, reason: 'no sources' };
      for (const id of unique) {
        if (!batch.has(id)) return { ok: false, reason: `${id} is not in the batch` };
        const status = statusOf(id);
        if (status === undefined) return { ok: false, reason: `${id} is unknown` };
        if (status !== 'active' && status !== 'superseded') {
          return { ok: false, reason: `${id} is ${status}` };
        }
      }
      return { ok: true, ids: unique };
    },
    hasActive: (ids) => ids.some((id) => statusOf(id) === 'active'),
    latestTime(ids) {
      let latest: string | null = null;
      for (const id of ids) {
        const time = byId.get(id)?.sourceTime;
        if (time === undefined) continue;
        if (latest === null || compareInstants(time, latest) > 0) latest = time;
      }
      return latest === null ? null : (canonicalUtc(latest) ?? latest);
    },
  };
}

/**
 * The first source cited anywhere in the proposal that was forgotten before commit, with what
 * cites it. MM-GRF-4 fails the whole batch then, so a forgotten event is never revived by a graph
 * record that was proposed while it was still visible.
 */
export function findForgottenSource(
  proposal: GraphProposalLike,
  ctx: SourceContext,
): string | null {
  const forgotten = (ids: readonly string[]) => ids.find((id) => ctx.statusOf(id) === 'forgotten');
  for (const node of proposal.nodes) {
    const lists = [
      node.sourceEventIds,
      node.nameSourceEventIds,
      ...node.aliases.map((alias) => alias.sourceEventIds),
      ...node.tags.map((tag) => tag.sourceEventIds),
      ...node.facts.map((fact) => fact.sourceEventIds),
      node.state?.sourceEventIds ?? [],
    ];
    for (const list of lists) {
      const id = forgotten(list);
      if (id !== undefined) {
        return `source ${id} cited by node "${node.name}" (ref ${node.ref}) was forgotten before commit`;
      }
    }
  }
  for (const edge of proposal.edges) {
    const id = forgotten(edge.sourceEventIds);
    if (id !== undefined) {
      return `source ${id} cited by edge ${edge.fromRef} -${edge.relation}-> ${edge.toRef} was forgotten before commit`;
    }
  }
  return null;
}
