import { z } from 'zod';
import { errorResponses, IdParam, SpaceIdParam, spaceOf, type TypedApp } from '@stratagate/http';
import { contextOf } from './context.ts';
import { rememberStatement } from './remember.ts';
import { RememberBody, RememberReply } from './remember.schema.ts';

/** MM-REM: an agent remembers one statement now, in the agent pool. */
export function rememberRoutes(app: TypedApp): void {
  app.post(
    '/v1/spaces/:spaceId/threads/:threadId/remember',
    {
      schema: {
        tags: ['gate'],
        operationId: 'remember',
        summary:
          'Remember one statement: a fact as a memory event, a lasting setting in the profile',
        description:
          'The statement goes where it belongs, and `destination` says where: a lasting personal setting ("from now on answer in Chinese", "call me Carol") is proposed for the profile this space is bound to — the user agrees in their next message — or saved at once with `userExplicit`; a one-off request ("keep this answer short") is not stored; a fact becomes a memory event in the agent pool at once, reinforcing a duplicate, added, or marked as a conflict with what it contradicts.',
        params: z.object({ spaceId: SpaceIdParam, threadId: IdParam }),
        body: RememberBody,
        response: {
          200: RememberReply,
          ...errorResponses({
            403: {
              description: 'Remember is disabled on this server (`remember_disabled`).',
              example: {
                code: 'remember_disabled',
                message: 'remember is disabled on this server',
              },
            },
            404: 'The space does not exist in the tenant of the API key (`space_not_found`).',
            409: {
              description:
                'The `requestId` was already used for a different remember request (`request_conflict`).',
              example: {
                code: 'request_conflict',
                message: 'this requestId was already used for a different remember request',
                details: { requestId: 'session-43:tool:call_2' },
              },
            },
            413: true,
            503: 'The read model has not caught up with the log within 10 s; retry shortly (`projection_lagging`).',
          }),
        },
      },
    },
    (request) =>
      rememberStatement(contextOf(request), spaceOf(request), {
        threadId: request.params.threadId,
        ...request.body,
      }),
  );
}
