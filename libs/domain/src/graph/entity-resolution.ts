import {
  clampConfidence,
  compareStrings,
  cutText,
  GRAPH_LIMITS,
  normaliseEntityName,
  uniqueStrings,
} from './graph-limits.ts';
import type { SourceContext } from './graph-sources.ts';
import {
  GRAPH_NODE_TYPES,
  type GraphIdPrefix,
  type GraphNode,
  type GraphOperation,
  type NodeType,
  type ProposedNodeLike,
} from './graph-types.ts';
import { addValue, cloneNode, diffNode, keptValues } from './node-values.ts';

/*
 * MM-GRF-4/6: validate each proposed node, then resolve it to an existing node, a node created
 * earlier in this proposal, or a new node. Every touched node is edited as a working copy; the
 * operations are the difference to the snapshot, so merging twice into one node records one update.
 */

export interface ResolvedNode {
  proposal: ProposedNodeLike;
  nodeId: string;
  name: string;
}

export type Resolution =
  | {
      ok: true;
      operations: GraphOperation[];
      resolved: ResolvedNode[];
      refs: Map<string, string>;
      warnings: string[];
    }
  | { ok: false; error: string };

const indexKey = (type: NodeType, name: string) => `${type}\u0000${normaliseEntityName(name)}`;

export function resolveEntities(
  snapshotNodes: readonly GraphNode[],
  proposed: readonly ProposedNodeLike[],
  ctx: SourceContext,
  newId: (prefix: GraphIdPrefix) => string,
): Resolution {
  const warnings: string[] = [];
  const originals = new Map(snapshotNodes.map((node) => [node.id, node]));
  const working = new Map<string, GraphNode>();
  const touched: string[] = [];
  const created = new Set<string>();
  const canonicalIndex = new Map<string, Set<string>>();
  const aliasIndex = new Map<string, Set<string>>();
  const refs = new Map<string, string>();
  const resolved: ResolvedNode[] = [];

  const addToIndex = (index: Map<string, Set<string>>, key: string, id: string) =>
    index.set(key, (index.get(key) ?? new Set()).add(id));
  // Hidden or unproven aliases never merge; an id the caller did not describe is given the benefit
  // of the doubt because the projector only ever recorded proven aliases.
  const aliasMerges = (alias: GraphNode['aliases'][number]) =>
    alias.visible &&
    alias.sourceEventIds.some((id) => {
      const status = ctx.statusOf(id);
      return status === undefined || status === 'active' || status === 'superseded';
    });
  const indexNode = (node: GraphNode) => {
    if (node.status !== 'active' && node.status !== 'disputed') return;
    addToIndex(canonicalIndex, indexKey(node.type, node.name), node.id);
    for (const alias of node.aliases) {
      if (aliasMerges(alias)) addToIndex(aliasIndex, indexKey(node.type, alias.value), node.id);
    }
  };
  snapshotNodes.forEach(indexNode);

  const lookup = (type: NodeType, name: string): string | undefined => {
    const key = indexKey(type, name);
    const hits = canonicalIndex.get(key) ?? aliasIndex.get(key);
    return hits ? [...hits].sort(compareStrings)[0] : undefined;
  };

  const workingCopy = (id: string): GraphNode => {
    const existing = working.get(id);
    if (existing) return existing;
    const original = originals.get(id);
    if (!original) throw new Error(`graph node ${id} is neither in the snapshot nor planned`);
    const copy = cloneNode(original);
    working.set(id, copy);
    touched.push(id);
    return copy;
  };

  for (const node of proposed) {
    const ref = cutText(node.ref, GRAPH_LIMITS.ref);
    const name = cutText(node.name, GRAPH_LIMITS.name);
    const label = `node "${name || node.name}" (ref ${ref})`;
    if (name === '') return { ok: false, error: `${label} has an empty name` };
    if (!(GRAPH_NODE_TYPES as readonly string[]).includes(node.type)) {
      return { ok: false, error: `${label} has unknown type ${String(node.type)}` };
    }
    const sources = ctx.validate(node.sourceEventIds);
    if (!sources.ok) return { ok: false, error: `${label} lacks valid sources: ${sources.reason}` };
    const nameSources = ctx.validate(node.nameSourceEventIds);
    if (!nameSources.ok) {
      return { ok: false, error: `${label} lacks valid name provenance: ${nameSources.reason}` };
    }

    const byId = originals.get(ref);
    let targetId =
      byId && byId.status !== 'archived' ? byId.id : (refs.get(ref) ?? lookup(node.type, name));
    if (targetId === undefined) {
      targetId = newId('node');
      created.add(targetId);
      touched.push(targetId);
      working.set(targetId, {
        id: targetId,
        name,
        type: node.type,
        aliases: [],
        tags: [],
        status: 'active',
        confidence: clampConfidence(node.confidence),
        sourceEventIds: [],
        nameSourceEventIds: nameSources.ids,
      });
    }
    const target = workingCopy(targetId);
    if (target.type !== node.type) {
      warnings.push(`${label} reuses ${target.id} of type ${target.type}; its type is kept`);
    }
    target.sourceEventIds = uniqueStrings([...target.sourceEventIds, ...sources.ids]);
    // The canonical name keeps its own provenance; another spelling is an alias with its own.
    const spelling = name === target.name ? [] : [{ value: name, ids: nameSources.ids }];
    for (const alias of [...spelling, ...keptValues(node.aliases, 'alias', label, ctx, warnings)]) {
      if (alias.value === target.name) continue;
      if (!addValue(target.aliases, alias, true, GRAPH_LIMITS.listItems)) {
        warnings.push(`alias "${alias.value}" on ${label} dropped: more than 40 aliases`);
      }
    }
    for (const tag of keptValues(node.tags, 'tag', label, ctx, warnings)) {
      if (!addValue(target.tags, tag, false, GRAPH_LIMITS.tagsPerNode)) {
        warnings.push(`tag "${tag.value}" on ${label} dropped: more than 12 tags`);
      }
    }
    if (!refs.has(ref)) refs.set(ref, targetId);
    indexNode(target);
    resolved.push({ proposal: node, nodeId: targetId, name });
  }

  const operations: GraphOperation[] = [];
  for (const id of touched) {
    const node = working.get(id);
    if (node && created.has(id)) operations.push({ op: 'node.create', node });
  }
  for (const id of touched) {
    const node = working.get(id);
    const original = originals.get(id);
    if (!node || !original || created.has(id)) continue;
    const update = diffNode(original, node);
    if (update) operations.push(update);
  }
  return { ok: true, operations, resolved, refs, warnings };
}
