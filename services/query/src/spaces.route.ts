import { z } from 'zod';
import {
  errorResponses,
  PageOffset,
  pageLimit,
  SpaceIdParam,
  spaceOf,
  tenantOf,
  type TypedApp,
} from '@stratagate/http';
import { contextOf } from './context.ts';
import { listSpaces, listThreads } from './spaces.ts';
import { SpaceListReply, ThreadListReply } from './spaces.schema.ts';

const Page = z.strictObject({ limit: pageLimit(200, 50), offset: PageOffset });

/** The tenant's spaces and a space's threads, page by page. */
export function spaceRoutes(app: TypedApp): void {
  app.get(
    '/v1/spaces',
    {
      schema: {
        tags: ['query'],
        operationId: 'listSpaces',
        summary: 'The spaces of your tenant, page by page',
        querystring: Page,
        response: { 200: SpaceListReply, ...errorResponses() },
      },
    },
    (request) => listSpaces(contextOf(request), tenantOf(request), request.query),
  );

  app.get(
    '/v1/spaces/:spaceId/threads',
    {
      schema: {
        tags: ['query'],
        operationId: 'listThreads',
        summary: 'The threads (sessions) of a space, page by page',
        params: z.object({ spaceId: SpaceIdParam }),
        querystring: Page,
        response: {
          200: ThreadListReply,
          ...errorResponses({
            404: 'The space does not exist in the tenant of the API key (`space_not_found`).',
          }),
        },
      },
    },
    (request) => listThreads(contextOf(request), spaceOf(request), request.query),
  );
}
