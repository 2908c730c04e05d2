import type {
  GraphContextNode,
  GraphProposal,
  NodeType,
  ProposedEdge,
  ProposedNode,
} from '../../graph.schema.ts';
import { cutCodePoints } from '../../text.ts';
import { endsWithName, normaliseName, projectKey } from './names.ts';

/** MM-GRF-5 cut limits, applied here so the proposal is already within them. */
const REF_MAX = 120;
const NAME_MAX = 160;
const LIST_MAX = 40;

interface NodeDraft {
  ref: string;
  name: string;
  type: NodeType;
  /** A name copied from a tag ("x") gives way to one copied from text ("X"). */
  nameFromTag: boolean;
  nameSources: string[];
  aliases: { value: string; sources: string[] }[];
  sources: string[];
  facts: { key: string; value: string; sources: string[] }[];
}

export interface NodeOptions {
  fromTag?: boolean;
}

const keyOf = (type: NodeType, name: string) =>
  type === 'project' ? projectKey(name) : normaliseName(name);

function addOnce(list: string[], id: string): void {
  if (!list.includes(id)) list.push(id);
}

/**
 * Collects nodes, edges and facts with their source events. One node per type and normalised
 * name (MM-GRF-6); a name that matches an existing context node of the same type reuses that
 * node's id as ref, so the consolidator updates it instead of creating a duplicate.
 */
export function createProposalBuilder(
  context: readonly GraphContextNode[],
  /** Every person the batch names, so a first name finds a full name told in any event. */
  batchPeople: readonly string[] = [],
) {
  const existing = new Map<string, GraphContextNode>();
  for (const node of context) {
    if (node.id.trim() === '') continue;
    // Canonical names first: an alias never takes a key a canonical name already holds.
    for (const name of [node.name, ...node.aliases.filter((a) => a !== node.name)]) {
      const key = `${node.type}\u0000${keyOf(node.type, name)}`;
      if (!existing.has(key)) existing.set(key, node);
    }
  }
  const drafts = new Map<string, NodeDraft>();
  const order: NodeDraft[] = [];
  // New refs must never look like an existing node's id.
  const refs = new Set<string>(context.map((n) => n.id));
  const edges = new Map<string, ProposedEdge>();

  function newRef(type: NodeType, key: string): string {
    const base = cutCodePoints(`${type}:${key}`, REF_MAX - 4);
    let ref = base;
    for (let n = 2; refs.has(ref); n += 1) ref = `${base}~${n}`;
    return ref;
  }

  function node(type: NodeType, raw: string, eventId: string, options: NodeOptions = {}) {
    const name = cutCodePoints(raw.trim(), NAME_MAX);
    const key = keyOf(type, name);
    if (key === '' || !/[\p{L}\p{N}]/u.test(key)) return undefined;
    const mapKey = `${type}\u0000${key}`;
    const known = existing.get(mapKey);
    // Two names of one context node (its name and an alias) share that node's draft.
    let draft = drafts.get(mapKey) ?? order.find((d) => known !== undefined && d.ref === known.id);
    if (!draft) {
      // Spelled as the context spells it when only case or spacing differ ("x" → "X").
      const spelling = known
        ? [known.name, ...known.aliases].find((n) => normaliseName(n) === normaliseName(name))
        : undefined;
      draft = {
        ref: known?.id ?? newRef(type, key),
        name: spelling ?? name,
        type,
        nameFromTag: options.fromTag === true && spelling === undefined,
        nameSources: [],
        aliases: [],
        sources: [],
        facts: [],
      };
      refs.add(draft.ref);
      order.push(draft);
    } else if (draft.nameFromTag && options.fromTag !== true) {
      draft.name = name;
      draft.nameFromTag = false;
    }
    drafts.set(mapKey, draft);
    if (normaliseName(name) === normaliseName(draft.name)) addOnce(draft.nameSources, eventId);
    else alias(draft, name, eventId);
    addOnce(draft.sources, eventId);
    return draft.ref;
  }

  /** Another name the events use for a node, with its own provenance (MM-GRF-2/6). */
  function alias(draft: NodeDraft, name: string, eventId: string): void {
    const found = draft.aliases.find((a) => normaliseName(a.value) === normaliseName(name));
    if (found) addOnce(found.sources, eventId);
    else draft.aliases.push({ value: name, sources: [eventId] });
  }

  function edge(fromRef: string, relation: string, toRef: string, eventId: string): void {
    if (fromRef === toRef) return;
    const key = `${fromRef}\u0000${relation}\u0000${toRef}`;
    const found = edges.get(key) ?? { fromRef, toRef, relation, sourceEventIds: [] };
    addOnce(found.sourceEventIds, eventId);
    edges.set(key, found);
  }

  function fact(ref: string, key: string, value: string, eventId: string): void {
    const draft = order.find((d) => d.ref === ref);
    if (!draft) return;
    const found = draft.facts.find((f) => f.key === key && f.value === value);
    if (found) addOnce(found.sources, eventId);
    else draft.facts.push({ key, value, sources: [eventId] });
    addOnce(draft.sources, eventId);
  }

  /** The longest name proposed so far (or, with `inContext`, in the context) that `text` ends with. */
  function nameAtEnd(
    text: string,
    inContext: boolean,
  ): { type: NodeType; name: string } | undefined {
    const candidates = (
      inContext
        ? context.flatMap((n) => [n.name, ...n.aliases].map((name) => ({ type: n.type, name })))
        : order.map((d) => ({ type: d.type, name: d.name }))
    ).filter((c) => endsWithName(text, c.name));
    candidates.sort((a, b) => b.name.length - a.name.length);
    const best = candidates[0];
    // Copy the words as the text writes them, not the stored spelling.
    return best && { type: best.type, name: text.trimEnd().slice(-best.name.length) };
  }

  function build(reason: string): GraphProposal {
    const nodes: ProposedNode[] = order.map((d) => ({
      ref: d.ref,
      name: d.name,
      type: d.type,
      nameSourceEventIds: d.nameSources.slice(0, LIST_MAX),
      aliases: d.aliases.slice(0, LIST_MAX).map((a) => ({
        value: a.value,
        sourceEventIds: a.sources.slice(0, LIST_MAX),
      })),
      tags: [],
      facts: d.facts.map((f) => ({
        key: f.key,
        value: f.value,
        sourceEventIds: f.sources.slice(0, LIST_MAX),
      })),
      sourceEventIds: d.sources.slice(0, LIST_MAX),
    }));
    const proposed = [...edges.values()].map((e) => ({
      ...e,
      sourceEventIds: e.sourceEventIds.slice(0, LIST_MAX),
    }));
    return { nodes, edges: proposed, reason };
  }

  /**
   * A known person whose full name starts with this first name ("Priya" → "Priya Sharma"),
   * among the proposal's people, then the context's: the same person within a block.
   */
  function fullName(first: string): string | undefined {
    const key = normaliseName(first);
    const names = [
      ...order.filter((d) => d.type === 'person').map((d) => d.name),
      ...batchPeople,
      ...context.filter((n) => n.type === 'person').flatMap((n) => [n.name, ...n.aliases]),
    ];
    return names.find((n) => n.includes(' ') && normaliseName(n.split(/\s+/u)[0] ?? '') === key);
  }

  /** Another name for a node already proposed, with its own provenance (MM-GRF-6). */
  function addAlias(ref: string, name: string, eventId: string): void {
    const draft = order.find((d) => d.ref === ref);
    if (draft && normaliseName(name) !== normaliseName(draft.name)) alias(draft, name, eventId);
  }

  return { node, edge, fact, nameAtEnd, fullName, addAlias, build };
}

export type ProposalBuilder = ReturnType<typeof createProposalBuilder>;
