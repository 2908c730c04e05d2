import { takeCodePoints } from '../blocks/tokens.ts';
import type { WeightedField } from '../retrieval/bm25.ts';
import { normaliseText, tokenize } from '../retrieval/tokenize.ts';
import type { EffectiveNode } from './graph-effective.ts';
import { compareInstants, compareStrings, renderFactValue } from './graph-limits.ts';

/*
 * MM-RET-5 graph search, the pure parts: the weighted BM25 document of a node, and the match rule
 * that decides which BM25 candidates are real hits and why.
 *
 * Matching works on query *units* (the whitespace-separated chunks of the normalised query, each
 * tokenised as MM-RET-1 does). A value — a fact value or list item, an endpoint name, the name, an
 * alias, a tag, the type — matches when
 *   - it is mentioned in the query: every token of the value is among the query's tokens
 *     ("does X use pnpm" mentions `pnpm`; "李明在B公司" mentions `B公司`), or
 *   - it contains a whole query unit ("pending" is in `pending verification`).
 * A unit is the smallest thing that must match as a whole, so `B公司` does not match `A公司`
 * although both share the bigram 公司 (the MM-RET-5 acceptance vector).
 *
 * Relation text is indexed (weight 1) for ranking but is never a match channel, so a query that
 * only names a relation ("works_at") returns nothing. A fact key is *named* when all of its tokens
 * are query tokens ("company" names the key `company`): fact matching is then restricted to the
 * values of the named keys, and query units made only of key words no longer take part in any
 * match. A query made only of key words matches every fact of those keys ("company" → the current
 * and the historical company).
 */

export const GRAPH_SEARCH_WEIGHTS = {
  name: 6,
  aliases: 5,
  tags: 5,
  type: 2,
  currentFacts: 4,
  historicalFacts: 2,
  currentEndpoints: 4,
  historicalEndpoints: 2,
  relations: 1,
} as const;

export const DEFAULT_GRAPH_SEARCH_LIMIT = 8;
export const MAX_GRAPH_SEARCH_LIMIT = 20;
/** MM-RET-9: a graph card's `currentState` is cut to 500 code points. */
export const GRAPH_CARD_STATE_MAX = 500;
/** MM-RET-5: a hit's timeline lists at most 6 cited events. */
export const GRAPH_TIMELINE_MAX = 6;

export type GraphTimelineKind = 'current' | 'historical';
export type GraphMatchType = 'current' | 'historical' | 'both';
export type GraphMatchField =
  | 'name'
  | 'alias'
  | 'tag'
  | 'type'
  | 'currentFact'
  | 'historicalFact'
  | 'currentEndpoint'
  | 'historicalEndpoint';

export interface GraphSearchFact {
  id: string;
  key: string;
  value: string | readonly string[];
}

export interface GraphSearchEdge {
  id: string;
  relation: string;
  /** The node at the other end of the edge (the node itself for a self-loop). */
  endpointId: string;
  /** Its name; '' when the endpoint is unknown (it then never matches). */
  endpointName: string;
  /** `out` when the node is the edge's `from`. */
  direction: 'out' | 'in';
}

/** What graph search sees of a node: its effective view (MM-GRF-8) with endpoint names resolved. */
export interface GraphSearchView<
  F extends GraphSearchFact = GraphSearchFact,
  E extends GraphSearchEdge = GraphSearchEdge,
> {
  id: string;
  name: string;
  type: string;
  aliases: readonly string[];
  tags: readonly string[];
  currentFacts: readonly F[];
  historicalFacts: readonly F[];
  currentEdges: readonly E[];
  historicalEdges: readonly E[];
}

type ViewFact = EffectiveNode['currentFacts'][number] | EffectiveNode['historicalFacts'][number];
type ViewEdge = EffectiveNode['currentEdges'][number] & GraphSearchEdge;

/** The search view of an effective node; `nodeNames` maps node ids to names (endpoints). */
export function graphSearchView(
  view: EffectiveNode,
  nodeNames: ReadonlyMap<string, string>,
): GraphSearchView<ViewFact, ViewEdge> {
  const edge = (e: EffectiveNode['currentEdges'][number]): ViewEdge => {
    const direction = e.fromId === view.id ? 'out' : 'in';
    const endpointId = direction === 'out' ? e.toId : e.fromId;
    const endpointName =
      endpointId === view.id ? view.name : (nodeNames.get(endpointId) ?? '').trim();
    return { ...e, endpointId, endpointName, direction };
  };
  return {
    id: view.id,
    name: view.name,
    type: view.type,
    aliases: view.aliases,
    tags: view.tags,
    currentFacts: view.currentFacts,
    historicalFacts: view.historicalFacts,
    currentEdges: view.currentEdges.map(edge),
    historicalEdges: view.historicalEdges.map(edge),
  };
}

const factText = (fact: GraphSearchFact) =>
  `${fact.key} ${typeof fact.value === 'string' ? fact.value : fact.value.join(' ')}`;

/**
 * The MM-RET-5 BM25 document: name ×6, aliases ×5, tags ×5, type ×2, current facts ×4 (key and
 * value), historical facts ×2, current endpoints ×4, historical endpoints ×2, relations ×1. List
 * fields are joined with spaces (tokens never span a space, so this equals indexing each item).
 */
export function graphNodeSearchFields(view: GraphSearchView): WeightedField[] {
  const w = GRAPH_SEARCH_WEIGHTS;
  return [
    { text: view.name, weight: w.name },
    { text: view.aliases.join(' '), weight: w.aliases },
    { text: view.tags.join(' '), weight: w.tags },
    { text: view.type, weight: w.type },
    { text: view.currentFacts.map(factText).join(' '), weight: w.currentFacts },
    { text: view.historicalFacts.map(factText).join(' '), weight: w.historicalFacts },
    { text: view.currentEdges.map((e) => e.endpointName).join(' '), weight: w.currentEndpoints },
    {
      text: view.historicalEdges.map((e) => e.endpointName).join(' '),
      weight: w.historicalEndpoints,
    },
    {
      text: [...view.currentEdges, ...view.historicalEdges].map((e) => e.relation).join(' '),
      weight: w.relations,
    },
  ];
}

export interface GraphMatch<
  F extends GraphSearchFact = GraphSearchFact,
  E extends GraphSearchEdge = GraphSearchEdge,
> {
  matchType: GraphMatchType;
  matchedFields: GraphMatchField[];
  matchReason: string;
  matchedFacts: (F & { timeline: GraphTimelineKind })[];
  matchedEdges: (E & { timeline: GraphTimelineKind })[];
  /** Fact keys the query named (matching was restricted to their values); normalised. */
  restrictedToKeys: string[];
}

const FIELD_ORDER: readonly GraphMatchField[] = [
  'name',
  'alias',
  'tag',
  'type',
  'currentFact',
  'historicalFact',
  'currentEndpoint',
  'historicalEndpoint',
];

/** The query's units: the token sets of its whitespace-separated chunks (empty ones dropped). */
function queryUnits(query: string): string[][] {
  return normaliseText(query)
    .split(' ')
    .map((chunk) => [...new Set(tokenize(chunk))])
    .filter((tokens) => tokens.length > 0);
}

/**
 * MM-RET-5 match rule for one BM25 candidate. Null when nothing but relation text (or nothing at
 * all) matches: such a node is not a hit. `matchType` is `current` or `historical` by the facts and
 * edges that matched (both → `both`); a match on name, alias, tag or type alone is `current`, as
 * that metadata describes the node as it is now.
 */
export function matchGraphNode<F extends GraphSearchFact, E extends GraphSearchEdge>(
  query: string,
  view: GraphSearchView<F, E>,
): GraphMatch<F, E> | null {
  const units = queryUnits(query);
  if (units.length === 0) return null;
  const queryTokens = new Set(units.flat());

  const facts = [
    ...view.currentFacts.map((fact) => ({ fact, timeline: 'current' as const })),
    ...view.historicalFacts.map((fact) => ({ fact, timeline: 'historical' as const })),
  ];
  const named = new Map<string, string[]>();
  for (const { fact } of facts) {
    const key = normaliseText(fact.key);
    if (named.has(key)) continue;
    const tokens = tokenize(fact.key);
    if (tokens.length > 0 && tokens.every((t) => queryTokens.has(t))) named.set(key, tokens);
  }
  const keyTokens = new Set([...named.values()].flat());
  const content = units.filter((unit) => !unit.every((t) => keyTokens.has(t)));
  const contentTokens = new Set(content.flat());

  const matches = (text: string): boolean => {
    const tokens = tokenize(text);
    if (tokens.length === 0 || content.length === 0) return false;
    if (tokens.every((t) => contentTokens.has(t))) return true;
    const own = new Set(tokens);
    return content.some((unit) => unit.every((t) => own.has(t)));
  };
  const valueMatches = (value: string | readonly string[]) =>
    typeof value === 'string' ? matches(value) : value.some(matches);

  const matchedFacts = facts
    .filter(({ fact }) => {
      if (named.size === 0) return valueMatches(fact.value);
      if (!named.has(normaliseText(fact.key))) return false;
      return content.length === 0 || valueMatches(fact.value);
    })
    .map(({ fact, timeline }) => ({ ...fact, timeline }));
  const matchedEdges = [
    ...view.currentEdges.map((edge) => ({ ...edge, timeline: 'current' as const })),
    ...view.historicalEdges.map((edge) => ({ ...edge, timeline: 'historical' as const })),
  ].filter((edge) => matches(edge.endpointName));

  const fields = new Set<GraphMatchField>();
  const metadata: string[] = [];
  if (matches(view.name)) {
    fields.add('name');
    metadata.push(`name "${view.name}"`);
  }
  const aliases = view.aliases.filter(matches);
  if (aliases.length > 0) {
    fields.add('alias');
    metadata.push(`alias ${aliases.map((a) => `"${a}"`).join(', ')}`);
  }
  const tags = view.tags.filter(matches);
  if (tags.length > 0) {
    fields.add('tag');
    metadata.push(`tag ${tags.map((t) => `"${t}"`).join(', ')}`);
  }
  if (matches(view.type)) {
    fields.add('type');
    metadata.push(`type ${view.type}`);
  }
  for (const fact of matchedFacts) {
    fields.add(fact.timeline === 'current' ? 'currentFact' : 'historicalFact');
  }
  for (const edge of matchedEdges) {
    fields.add(edge.timeline === 'current' ? 'currentEndpoint' : 'historicalEndpoint');
  }
  if (fields.size === 0) return null;

  const timelines = new Set([...matchedFacts, ...matchedEdges].map((x) => x.timeline));
  const matchType: GraphMatchType =
    timelines.has('current') && timelines.has('historical')
      ? 'both'
      : timelines.has('historical')
        ? 'historical'
        : 'current';
  const restrictedToKeys = [...named.keys()];
  return {
    matchType,
    matchedFields: FIELD_ORDER.filter((field) => fields.has(field)),
    matchReason: matchReason(metadata, matchedFacts, matchedEdges, restrictedToKeys, view.name),
    matchedFacts,
    matchedEdges,
    restrictedToKeys,
  };
}

const REASON_MAX = 300;
const REASON_ITEMS = 3;

function matchReason(
  metadata: readonly string[],
  facts: readonly (GraphSearchFact & { timeline: GraphTimelineKind })[],
  edges: readonly (GraphSearchEdge & { timeline: GraphTimelineKind })[],
  keys: readonly string[],
  ownName: string,
): string {
  const parts = [...metadata];
  const listed = <T>(items: readonly T[], render: (item: T) => string) => {
    parts.push(...items.slice(0, REASON_ITEMS).map(render));
    if (items.length > REASON_ITEMS) parts.push(`+${items.length - REASON_ITEMS} more`);
  };
  listed(facts, (f) => `${f.timeline} fact ${f.key}: ${renderFactValue(f.value)}`);
  listed(edges, (e) =>
    e.direction === 'out'
      ? `${e.timeline} edge ${ownName} –${e.relation}→ ${e.endpointName}`
      : `${e.timeline} edge ${e.endpointName} –${e.relation}→ ${ownName}`,
  );
  const text = `${keys.length > 0 ? `facts restricted to key ${keys.join(', ')}; ` : ''}matched ${parts.join('; ')}`;
  return Array.from(text).length > REASON_MAX ? `${takeCodePoints(text, REASON_MAX - 1)}…` : text;
}

/** MM-RET-9 `currentState`: current facts as `key: value` (`[disputed]` marked), `; `-joined, ≤ 500. */
export function graphCardState(
  facts: readonly (GraphSearchFact & { disputed?: boolean })[],
  max: number = GRAPH_CARD_STATE_MAX,
): string {
  const text = facts
    .map((f) => `${f.key}: ${renderFactValue(f.value)}${f.disputed ? ' [disputed]' : ''}`)
    .join('; ');
  return takeCodePoints(text, max);
}

export interface GraphTimelineEntry {
  eventId: string;
  title: string;
  sourceTime: string;
}

/** A hit's timeline: its cited events in time order (ties by id), at most 6. */
export function graphTimeline(entries: readonly GraphTimelineEntry[]): GraphTimelineEntry[] {
  return [...entries]
    .sort(
      (a, b) => compareInstants(a.sourceTime, b.sourceTime) || compareStrings(a.eventId, b.eventId),
    )
    .slice(0, GRAPH_TIMELINE_MAX);
}
