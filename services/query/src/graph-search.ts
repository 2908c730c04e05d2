import {
  DEFAULT_GRAPH_SEARCH_LIMIT,
  graphCardState,
  graphSearchView,
  graphTimeline,
  matchGraphNode,
  MAX_GRAPH_SEARCH_LIMIT,
  type GraphMatchField,
  type GraphMatchType,
  type GraphTimelineEntry,
  type GraphTimelineKind,
  type NodeType,
  type SpaceRef,
} from '@stratagate/domain';
import { loadEffectiveNodes, searchIndex } from '@stratagate/store';
import { readModel, type QueryContext } from './context.ts';
import { threadBlockIds } from './read-model/threads.queries.ts';

export const GRAPH_SCORE_MEANING =
  'BM25 relevance over the node’s name, aliases, tags, type, facts and connected nodes; orders results only, never a probability of truth';

/** BM25 candidates read per page: the match rule drops some, so take more than the limit. */
const CANDIDATE_FACTOR = 4;
const MIN_CANDIDATES = 32;
const MAX_PAGES = 4;

export interface GraphSearchOptions {
  /** The query; an empty or punctuation-only query finds nothing. */
  query: string;
  /** 1–20, default 8 (MM-RET-5); out-of-range values are clamped. */
  limit?: number;
  /**
   * MM-RET-8 (recall): skip hits citing an event whose source block belongs to this thread, since
   * that session's blocks are already in its context. Agent graph search leaves it unset.
   */
  excludeThreadId?: string;
}

export interface GraphCardFact {
  id: string;
  key: string;
  value: string | string[];
  timeline: GraphTimelineKind;
  disputed: boolean;
  validFrom: string | null;
  validTo: string | null;
  citedEventIds: string[];
}

export interface GraphCardEdge {
  id: string;
  relation: string;
  fromId: string;
  fromName: string;
  toId: string;
  toName: string;
  timeline: GraphTimelineKind;
  validFrom: string | null;
  validTo: string | null;
  citedEventIds: string[];
}

/** MM-RET-9 graph card with MM-RET-5 match information. */
export interface GraphCard {
  ref: string;
  id: string;
  name: string;
  type: NodeType;
  aliases: string[];
  tags: string[];
  /** Current facts as `key: value; …`, ≤ 500 code points. */
  currentState: string;
  status: 'active' | 'disputed';
  rankScore: number;
  scoreMeaning: string;
  matchType: GraphMatchType;
  matchedFields: GraphMatchField[];
  matchReason: string;
  matchedFacts: GraphCardFact[];
  matchedEdges: GraphCardEdge[];
  /** ≤ 6 visible cited events, most recent source time first (MM-GRF-8). */
  provenanceEventIds: string[];
  /** The cited events in time order, ≤ 6. */
  timeline: GraphTimelineEntry[];
}

/**
 * MM-RET-5 graph search: BM25 candidates from the Postgres index (kind `node`, visible nodes
 * only), each checked against the node's current effective view with the match rule; candidates
 * with no real fact, endpoint or metadata match are dropped, then the list is cut to `limit`.
 * Pure read: opens no evidence batch (the route does) and changes nothing.
 */
export async function searchGraph(
  ctx: Pick<QueryContext, 'db' | 'schema' | 'postingCache'>,
  space: SpaceRef,
  options: GraphSearchOptions,
): Promise<GraphCard[]> {
  const limit = clampLimit(options.limit);
  const db = readModel(ctx);
  const pageSize = Math.max(MIN_CANDIDATES, limit * CANDIDATE_FACTOR);
  const excludedBlocks = new Set(
    options.excludeThreadId ? await threadBlockIds(db, space, options.excludeThreadId) : [],
  );

  const hits: GraphCard[] = [];
  for (let page = 0; page < MAX_PAGES && hits.length < limit; page++) {
    const ranked = await searchIndex(ctx.db, ctx.schema, {
      space,
      kind: 'node',
      query: options.query,
      limit: pageSize,
      offset: page * pageSize,
      ...(ctx.postingCache ? { cache: ctx.postingCache } : {}),
    });
    if (ranked.length === 0) break;
    const loaded = await loadEffectiveNodes(
      db,
      space,
      ranked.map((r) => r.id),
    );
    for (const candidate of ranked) {
      if (hits.length >= limit) break;
      const view = loaded.views.get(candidate.id);
      if (!view) continue;
      const match = matchGraphNode(options.query, graphSearchView(view, loaded.names));
      if (!match) continue;
      const cited = view.provenanceEventIds.flatMap((id) => {
        const event = loaded.events.get(id);
        return event ? [event] : [];
      });
      if (cited.some((e) => e.sourceBlockId !== null && excludedBlocks.has(e.sourceBlockId))) {
        continue;
      }
      const nameOf = (id: string) => loaded.names.get(id) ?? '';
      hits.push({
        ref: `graph-node:${view.id}`,
        id: view.id,
        name: view.name,
        type: view.type,
        aliases: view.aliases,
        tags: view.tags,
        currentState: graphCardState(view.currentFacts),
        status: view.status === 'disputed' ? 'disputed' : 'active',
        rankScore: candidate.score,
        scoreMeaning: GRAPH_SCORE_MEANING,
        matchType: match.matchType,
        matchedFields: match.matchedFields,
        matchReason: match.matchReason,
        matchedFacts: match.matchedFacts.map((f) => ({
          id: f.id,
          key: f.key,
          value: f.value,
          timeline: f.timeline,
          disputed: f.status === 'disputed',
          validFrom: f.validFrom,
          validTo: f.validTo,
          citedEventIds: f.citedEventIds,
        })),
        matchedEdges: match.matchedEdges.map((e) => ({
          id: e.id,
          relation: e.relation,
          fromId: e.fromId,
          fromName: nameOf(e.fromId),
          toId: e.toId,
          toName: nameOf(e.toId),
          timeline: e.timeline,
          validFrom: e.validFrom,
          validTo: e.validTo,
          citedEventIds: e.citedEventIds,
        })),
        provenanceEventIds: view.provenanceEventIds,
        timeline: graphTimeline(
          cited.map((e) => ({ eventId: e.id, title: e.title, sourceTime: e.sourceTime })),
        ),
      });
    }
    if (ranked.length < pageSize) break;
  }
  return hits;
}

function clampLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_GRAPH_SEARCH_LIMIT;
  return Math.min(MAX_GRAPH_SEARCH_LIMIT, Math.max(1, Math.floor(limit)));
}
