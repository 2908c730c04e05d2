import { cutText, GRAPH_LIMITS, uniqueStrings } from './graph-limits.ts';
import type { SourceContext } from './graph-sources.ts';
import type { GraphNode, GraphOperation, ProposedValueLike } from './graph-types.ts';

/*
 * Aliases and tags of a node under resolution (MM-GRF-2/4/6): each value keeps its own provenance,
 * and a node's update is the difference between its working copy and the snapshot.
 */

export function cloneNode(node: GraphNode): GraphNode {
  return {
    ...node,
    aliases: node.aliases.map((alias) => ({ ...alias, sourceEventIds: [...alias.sourceEventIds] })),
    tags: node.tags.map((tag) => ({ ...tag, sourceEventIds: [...tag.sourceEventIds] })),
    sourceEventIds: [...node.sourceEventIds],
    nameSourceEventIds: [...node.nameSourceEventIds],
  };
}

export function keptValues(
  values: readonly ProposedValueLike[],
  kind: 'alias' | 'tag',
  label: string,
  ctx: SourceContext,
  warnings: string[],
): { value: string; ids: string[] }[] {
  const kept: { value: string; ids: string[] }[] = [];
  for (const item of values) {
    const value = cutText(item.value, GRAPH_LIMITS.name);
    if (value === '') {
      warnings.push(`empty ${kind} on ${label} dropped`);
      continue;
    }
    const verdict = ctx.validate(item.sourceEventIds);
    if (!verdict.ok) {
      warnings.push(
        `${kind} "${value}" on ${label} dropped: no valid provenance (${verdict.reason})`,
      );
      continue;
    }
    kept.push({ value, ids: verdict.ids });
  }
  return kept;
}

/** Adds a value or unites its sources; false when a new value would pass `max`. */
export function addValue(
  list: { value: string; sourceEventIds: string[]; visible?: boolean }[],
  item: { value: string; ids: string[] },
  withVisibility: boolean,
  max = Number.POSITIVE_INFINITY,
): boolean {
  const existing = list.find((entry) => entry.value === item.value);
  if (existing) {
    // New evidence adds sources but does not un-hide an alias someone hid on purpose.
    existing.sourceEventIds = uniqueStrings([...existing.sourceEventIds, ...item.ids]);
    return true;
  }
  if (list.length >= max) return false;
  list.push(
    withVisibility
      ? { value: item.value, sourceEventIds: item.ids, visible: true }
      : { value: item.value, sourceEventIds: item.ids },
  );
  return true;
}

function diffValues<T extends { value: string; sourceEventIds: string[] }>(
  before: readonly T[],
  after: readonly T[],
): T[] {
  const added: T[] = [];
  for (const entry of after) {
    const old = before.find((candidate) => candidate.value === entry.value);
    const ids = entry.sourceEventIds.filter((id) => !old?.sourceEventIds.includes(id));
    if (ids.length > 0) added.push({ ...entry, sourceEventIds: ids });
  }
  return added;
}

export function diffNode(original: GraphNode, node: GraphNode): GraphOperation | null {
  const addAliases = diffValues(original.aliases, node.aliases);
  const addTags = diffValues(original.tags, node.tags);
  const addSourceEventIds = node.sourceEventIds.filter(
    (id) => !original.sourceEventIds.includes(id),
  );
  if (addAliases.length + addTags.length + addSourceEventIds.length === 0) return null;
  return { op: 'node.update', nodeId: node.id, addAliases, addTags, addSourceEventIds };
}
