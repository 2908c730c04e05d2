import { z } from 'zod';
import { errorResponses, IdParam, SpaceIdParam, spaceOf, type TypedApp } from '@stratagate/http';
import { contextOf } from './context.ts';
import { EventSearchParams } from './event-search.ts';
import { searchMemoryEvents, searchRawMessages } from './search.ts';
import { EventSearchReply, RawSearchBody, RawSearchReply } from './search.schema.ts';

const ThreadParams = z.object({ spaceId: SpaceIdParam, threadId: IdParam });
const SPACE_NOT_FOUND =
  'The space does not exist in the tenant of the API key (`space_not_found`).';

/**
 * Agent retrieval (MM-RET-3/6): ranked in Postgres by the search index, scope applied before
 * ranking; every call opens an evidence batch whose refs the agent assesses and adopts.
 */
export function searchRoutes(app: TypedApp): void {
  app.post(
    '/v1/spaces/:spaceId/threads/:threadId/search/raw',
    {
      schema: {
        tags: ['gate'],
        operationId: 'searchRawMessages',
        summary: 'Search sealed raw messages (BM25); opens an evidence batch',
        params: ThreadParams,
        body: RawSearchBody,
        response: {
          200: RawSearchReply,
          ...errorResponses({ 404: SPACE_NOT_FOUND, 413: true }),
        },
      },
    },
    (request) =>
      searchRawMessages(contextOf(request), spaceOf(request), {
        threadId: request.params.threadId,
        ...request.body,
      }),
  );

  app.post(
    '/v1/spaces/:spaceId/threads/:threadId/search/events',
    {
      schema: {
        tags: ['gate'],
        operationId: 'searchEvents',
        summary:
          'Search memory events (BM25, structured filters, RRF over the extracted and agent pools); opens an evidence batch',
        params: ThreadParams,
        body: EventSearchParams,
        response: {
          200: EventSearchReply,
          ...errorResponses({ 404: SPACE_NOT_FOUND, 413: true }),
        },
      },
    },
    (request) =>
      searchMemoryEvents(contextOf(request), spaceOf(request), {
        threadId: request.params.threadId,
        ...request.body,
      }),
  );
}
