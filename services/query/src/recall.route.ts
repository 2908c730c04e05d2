import { z } from 'zod';
import { errorResponses, IdParam, SpaceIdParam, spaceOf, type TypedApp } from '@stratagate/http';
import { contextOf } from './context.ts';
import { assembleRecall } from './recall.ts';
import { RecallBody, RecallReply } from './recall.schema.ts';

export function recallRoutes(app: TypedApp): void {
  app.post(
    '/v1/spaces/:spaceId/threads/:threadId/recall',
    {
      schema: {
        tags: ['query'],
        operationId: 'recall',
        summary:
          'Assemble recall context within budgets (activated memory, decayed blocks, open tail)',
        params: z.object({ spaceId: SpaceIdParam, threadId: IdParam }),
        body: RecallBody,
        response: {
          200: RecallReply,
          ...errorResponses({
            404: 'The space does not exist in the tenant of the API key (`space_not_found`).',
            413: true,
          }),
        },
      },
    },
    (request) =>
      assembleRecall(contextOf(request), spaceOf(request), {
        threadId: request.params.threadId,
        message: request.body.message,
      }),
  );
}
