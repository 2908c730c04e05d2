import { z } from 'zod';
import {
  errorResponses,
  IdParam,
  PageOffset,
  pageLimit,
  SpaceIdParam,
  spaceOf,
  type TypedApp,
} from '@stratagate/http';
import { contextOf } from './context.ts';
import { getMemoryEvent, listMemoryEvents } from './memory-events.ts';
import { MemoryEventDetailReply, MemoryEventListReply } from './memory-events.schema.ts';

const ListQuery = z.strictObject({
  status: z
    .enum(['active', 'superseded', 'forgotten', 'archived', 'all'])
    .default('all')
    .describe('only events in this status (default: all)'),
  blockId: IdParam.optional().describe('only events extracted from this block'),
  limit: pageLimit(200, 50),
  offset: PageOffset,
});

export function memoryEventRoutes(app: TypedApp): void {
  app.get(
    '/v1/spaces/:spaceId/memory-events',
    {
      schema: {
        tags: ['query'],
        operationId: 'listMemoryEvents',
        summary: 'List memory events of a space (newest source block first)',
        params: z.object({ spaceId: SpaceIdParam }),
        querystring: ListQuery,
        response: {
          200: MemoryEventListReply,
          ...errorResponses({
            404: 'The space does not exist in the tenant of the API key (`space_not_found`).',
          }),
        },
      },
    },
    (request) => listMemoryEvents(contextOf(request), spaceOf(request), request.query),
  );

  app.get(
    '/v1/spaces/:spaceId/memory-events/:eventId',
    {
      schema: {
        tags: ['query'],
        operationId: 'getMemoryEvent',
        summary: 'One memory event with its source messages (provenance)',
        params: z.object({ spaceId: SpaceIdParam, eventId: IdParam }),
        response: {
          200: MemoryEventDetailReply,
          ...errorResponses({
            404: 'The space or the event does not exist (`space_not_found`, `memory_event_not_found`).',
          }),
        },
      },
    },
    (request) => getMemoryEvent(contextOf(request), spaceOf(request), request.params),
  );
}
