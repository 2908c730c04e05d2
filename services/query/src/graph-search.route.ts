import { z } from 'zod';
import {
  errorResponses,
  IdParam,
  notFound,
  SpaceIdParam,
  tenantOf,
  type TypedApp,
} from '@stratagate/http';
import { openBatch, type EvidenceContext } from './evidence.service.ts';
import { searchGraph } from './graph-search.ts';
import { GraphSearchBody, GraphSearchReply } from './graph-search.schema.ts';
import { getSpace, rm } from './read-model.queries.ts';

/**
 * Agent graph search (MM-RET-5): BM25 over the graph-node index with the match rule, returned as
 * MM-RET-9 graph cards; like every agent retrieval it opens an evidence batch (MM-GATE-2) whose
 * refs are the hits' `graph-node:<id>` and whose retrieved events are their provenance.
 */
export function graphSearchRoutes(ctx: EvidenceContext) {
  return (app: TypedApp) => {
    app.post(
      '/v1/spaces/:spaceId/threads/:threadId/search/graph',
      {
        schema: {
          tags: ['gate'],
          summary:
            'Search the knowledge graph (BM25 + match rule, current and historical state); opens an evidence batch',
          description:
            'Hits are graph cards with `matchType` (current | historical | both), `matchedFields`, `matchReason`, the matched facts and edges, ≤ 6 provenance events and their timeline. Relation words alone never match. Scores order results only.',
          params: z.object({
            spaceId: SpaceIdParam,
            threadId: IdParam.describe('the session whose evidence batch this search opens'),
          }),
          body: GraphSearchBody,
          response: {
            200: GraphSearchReply,
            ...errorResponses({
              404: 'The space does not exist in the tenant of the API key (`space_not_found`).',
              413: true,
            }),
          },
        },
      },
      async (request) => {
        const space = { tenantId: tenantOf(request), spaceId: request.params.spaceId };
        const { threadId } = request.params;
        if (!(await getSpace(rm(ctx.db, ctx.schema), space))) {
          throw notFound('space', space.spaceId);
        }
        const { query, limit } = request.body;
        const hits = await searchGraph(ctx, space, { query, limit });
        const refs = hits.map((h) => h.ref);
        const { batchId } = await openBatch(ctx, space, {
          threadId,
          operation: 'search_graph',
          query,
          refs,
          retrievedEventIds: [...new Set(hits.flatMap((h) => h.provenanceEventIds))],
        });
        return { batchId, evidenceRefs: refs, hits };
      },
    );
  };
}
