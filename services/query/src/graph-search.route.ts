import { z } from 'zod';
import { errorResponses, IdParam, SpaceIdParam, spaceOf, type TypedApp } from '@stratagate/http';
import { contextOf } from './context.ts';
import { GraphSearchBody, GraphSearchReply } from './graph-search.schema.ts';
import { searchGraphNodes } from './search.ts';

/** Agent graph search (MM-RET-5); like every agent retrieval it opens an evidence batch. */
export function graphSearchRoutes(app: TypedApp): void {
  app.post(
    '/v1/spaces/:spaceId/threads/:threadId/search/graph',
    {
      schema: {
        tags: ['gate'],
        operationId: 'searchGraph',
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
    (request) =>
      searchGraphNodes(contextOf(request), spaceOf(request), {
        threadId: request.params.threadId,
        ...request.body,
      }),
  );
}
