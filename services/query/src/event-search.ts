import { z } from 'zod';
import { fuseScores, planFusion, queryTerms, rrfFuse, type SpaceRef } from '@stratagate/domain';
import { IdParam, requestSchema } from '@stratagate/http';
import {
  eventDocKind,
  filteredEventIds,
  searchIndex,
  type AnyDb,
  type EventFilters,
  type EventPool,
  type PostingCache,
  type StructuredOrderBy,
} from '@stratagate/store';
import type { QueryContext } from './context.ts';

const IsoInstant = z.union([z.iso.date(), z.iso.datetime({ offset: true })]);

/** MM-RET-3 event search parameters, as the HTTP body takes them. */
export const EventSearchParams = requestSchema(
  z
    .strictObject({
      query: z
        .string()
        .max(2000)
        .default('')
        .describe('Free text; empty with no filter browses in structured order'),
      limit: z.number().int().min(1).max(20).default(6),
      offset: z.number().int().min(0).max(1000).default(0),
      eventIds: z
        .array(IdParam)
        .max(500)
        .optional()
        .describe('Hard scope: only these events are candidates (applied before ranking)'),
      topicId: z
        .string()
        .trim()
        .min(1)
        .max(200)
        .optional()
        .describe(
          "Only the topic's member events (a `topic_…` id or a `fallback:<eventId>` from the directory); an empty query lists them earliest first",
        ),
      temporalIntent: z
        .enum(['first', 'latest'])
        .optional()
        .describe('Prefer the earliest or the latest occurrence'),
      participants: z
        .array(z.string().trim().min(1).max(200))
        .max(10)
        .optional()
        .describe('Each must fuzzily match one of the event participants'),
      eventType: z
        .string()
        .trim()
        .min(1)
        .max(200)
        .optional()
        .describe('Fuzzy on event type, title, summary or tags'),
      happenedFrom: IsoInstant.optional().describe('Occurrence must overlap [from, to]'),
      happenedTo: IsoInstant.optional(),
      agentMemoryWeight: z
        .number()
        .min(0)
        .max(5)
        .default(1)
        .describe('RRF weight of the agent-recorded pool (0 = off); the extracted pool weighs 1'),
      trackRetrieval: z
        .boolean()
        .default(true)
        .describe('Stamp lastRetrievedAt on the hits (never changes weight)'),
    })
    .refine(
      (p) =>
        p.happenedFrom === undefined ||
        p.happenedTo === undefined ||
        Date.parse(p.happenedFrom) <= Date.parse(p.happenedTo),
      { path: ['happenedTo'], message: 'happenedTo must not be before happenedFrom' },
    ),
  { query: 'package manager Atlas', limit: 6 },
  {
    query: 'workshop',
    participants: ['Caroline'],
    happenedFrom: '2023-05-01',
    happenedTo: '2023-05-31T23:59:59Z',
    temporalIntent: 'latest',
    agentMemoryWeight: 0,
    trackRetrieval: false,
  },
  { query: '', eventType: 'decision', limit: 10, offset: 10 },
  { query: '', topicId: 'topic_5d1c7e2a9b3f', limit: 12 },
);
export type EventSearchParams = z.infer<typeof EventSearchParams>;

export interface EventSearchHit {
  id: string;
  score: number;
}

/** The request's date, for the relative periods a query names ("last week"): UTC. */
export function todayOf(ctx: Pick<QueryContext, 'now'>): string {
  return ctx.now().toISOString().slice(0, 10);
}

/** A filter set beyond this many events is still a filter, but BM25 then ranks only this many. */
const MEETING_ALL_SCOPE_CAP = 5000;

/**
 * MM-RET-3/4 event search: each pool (extracted, agent) is ranked to offset+limit by BM25 and
 * the structured filters, all evaluated in Postgres, then the pools are fused by their
 * max-normalised scores (`fuseScores`, ADR 0040) with the agent pool at `agentMemoryWeight`.
 * Scores order only.
 */
export async function searchEvents(
  ctx: Pick<QueryContext, 'db' | 'schema' | 'postingCache' | 'now'>,
  space: SpaceRef,
  /** The space's turn counter (weight order); awaited only by a structured ranking. */
  currentTurn: number | Promise<number>,
  params: Omit<EventSearchParams, 'trackRetrieval' | 'topicId'>,
): Promise<EventSearchHit[]> {
  const { db, schema, postingCache } = ctx;
  const today = todayOf(ctx);
  const depth = params.offset + params.limit;
  const pools: { pool: EventPool; weight: number }[] = [
    { pool: 'extracted', weight: 1 },
    { pool: 'agent', weight: params.agentMemoryWeight },
  ];
  // The pools are ranked independently: side by side.
  const lists = await Promise.all(
    pools
      .filter(({ weight }) => weight > 0)
      .map(async ({ pool, weight }) => {
        const ranked = await rankPool(
          { db, schema, cache: postingCache, today },
          space,
          pool,
          currentTurn,
          params,
          depth,
        );
        const hits = ranked.slice(0, depth).map((r) => ({ units: [r.id], score: r.score }));
        return { hits, weight };
      }),
  );
  return fuseScores(lists)
    .slice(params.offset, depth)
    .map((f) => ({ id: f.id, score: f.score }));
}

async function rankPool(
  {
    db,
    schema,
    cache,
    today,
  }: { db: AnyDb; schema: string; cache: PostingCache | undefined; today: string },
  space: SpaceRef,
  pool: EventPool,
  currentTurn: number | Promise<number>,
  params: Omit<EventSearchParams, 'trackRetrieval' | 'topicId'>,
  depth: number,
): Promise<EventSearchHit[]> {
  const kind = eventDocKind(pool);
  const lexicalQuery = queryTerms(params.query).length > 0;
  const order = async (): Promise<StructuredOrderBy> =>
    params.temporalIntent
      ? { intent: params.temporalIntent }
      : { intent: 'weight', currentTurn: await currentTurn };
  const scope = params.eventIds ? { eventIds: params.eventIds } : {};
  const filtered = async (filters: EventFilters, limit: number, eventIds?: readonly string[]) =>
    filteredEventIds(db, schema, {
      space,
      pool,
      filters,
      order: await order(),
      limit,
      ...(eventIds ? { eventIds } : scope),
    });
  const bm25 = async (docIds?: readonly string[]) => {
    if (!lexicalQuery) return [];
    const ranked = await searchIndex(db, schema, {
      space,
      kind,
      query: params.query,
      limit: depth,
      today,
      ...(docIds ? { docIds } : params.eventIds ? { docIds: params.eventIds } : {}),
      ...(cache ? { cache } : {}),
    });
    return ranked;
  };
  const ids = (hits: readonly EventSearchHit[]) => hits.map((h) => h.id);
  const scored = (fused: readonly { id: string; score: number }[]) =>
    fused.map(({ id, score }) => ({ id, score }));

  const filters: EventFilters[] = [];
  if (params.participants?.length) filters.push({ participants: params.participants });
  if (params.eventType !== undefined) filters.push({ eventType: params.eventType });
  if (params.happenedFrom !== undefined || params.happenedTo !== undefined) {
    filters.push({
      ...(params.happenedFrom !== undefined ? { happenedFrom: params.happenedFrom } : {}),
      ...(params.happenedTo !== undefined ? { happenedTo: params.happenedTo } : {}),
    });
  }

  if (filters.length === 0) {
    if (!lexicalQuery) {
      const browse = await filtered({}, depth);
      return scored(
        planFusion({ lexicalQuery, bm25: [], filterLists: [], meetingAll: [], browse }),
      );
    }
    const hits = await bm25();
    if (!params.temporalIntent || hits.length === 0) return hits;
    // A temporal intent without filters: the matches also vote in chronological order.
    const chronological = await filtered({}, depth, ids(hits));
    return scored(rrfFuse([{ ids: ids(hits) }, { ids: chronological }]));
  }

  const all = Object.assign({}, ...filters) as EventFilters;
  const meetingAll = await filtered(all, MEETING_ALL_SCOPE_CAP);
  if (meetingAll.length > 0) {
    const hits = ids(await bm25(meetingAll));
    return scored(
      planFusion({
        lexicalQuery,
        bm25: hits,
        // Only their presence matters here: the events meeting every filter decide.
        filterLists: filters.map(() => meetingAll),
        meetingAll: meetingAll.slice(0, depth),
        browse: [],
      }),
    );
  }
  const filterLists = [];
  for (const f of filters) filterLists.push(await filtered(f, depth));
  const hits = ids(await bm25());
  return scored(planFusion({ lexicalQuery, bm25: hits, filterLists, meetingAll: [], browse: [] }));
}
