import { z } from 'zod';
import { errorResponses, IdParam, SpaceIdParam, spaceOf, type TypedApp } from '@stratagate/http';
import type { FastifyRequest } from 'fastify';
import type { DataServices } from './context.ts';
import { eraseContent } from './erasure.ts';
import { ErasureReply } from './erasure.schema.ts';

/** Who asked: the API key's id (never the key, never a name). */
const requester = (request: FastifyRequest) => request.principal?.keyId ?? 'unknown';

const ERASED_FOR_GOOD =
  'The erasure is recorded (who, what, when) without the content, and holds even when the read models are rebuilt.';

export function erasureRoutes(ctx: DataServices) {
  return (app: TypedApp): void => {
    app.delete(
      '/v1/spaces/:spaceId',
      {
        schema: {
          tags: ['data'],
          operationId: 'eraseSpace',
          summary: 'Erase a space for good',
          description: `Everything the space holds (conversations, blocks, memory events, graph, evidence) becomes unreadable everywhere it is stored, and the space's memory is empty. The space id can be used again. ${ERASED_FOR_GOOD}`,
          params: z.object({ spaceId: SpaceIdParam }),
          response: {
            200: ErasureReply,
            ...errorResponses({ 404: 'The space has no records (`space_not_found`).' }),
          },
        },
      },
      (request) => eraseContent(ctx, spaceOf(request), { scope: 'space' }, requester(request)),
    );

    app.delete(
      '/v1/spaces/:spaceId/threads/:threadId',
      {
        schema: {
          tags: ['data'],
          operationId: 'eraseThread',
          summary: 'Erase a thread (session) for good',
          description: `The thread's turns and blocks, and what was derived from them (summaries, memory events, graph facts only they backed, evidence batches opened in it), become unreadable; the rest of the space stays as it was. ${ERASED_FOR_GOOD}`,
          params: z.object({ spaceId: SpaceIdParam, threadId: IdParam }),
          response: {
            200: ErasureReply,
            ...errorResponses({
              404: 'The space has no such thread (`thread_not_found`, `space_not_found`).',
            }),
          },
        },
      },
      (request) =>
        eraseContent(
          ctx,
          spaceOf(request),
          { scope: 'thread', threadId: request.params.threadId },
          requester(request),
        ),
    );

    app.delete(
      '/v1/spaces/:spaceId/memory-events/:eventId',
      {
        schema: {
          tags: ['data'],
          operationId: 'eraseMemoryEvent',
          summary: "Erase one memory event's content for good",
          description: `The event's card (title, summary, quotes, times), the agent's words that recorded it, and graph facts only it backed become unreadable; it leaves search, recall and the graph. The conversation it was drawn from stays: erase the thread for that. ${ERASED_FOR_GOOD}`,
          params: z.object({ spaceId: SpaceIdParam, eventId: IdParam }),
          response: {
            200: ErasureReply,
            ...errorResponses({
              404: 'The space has no such memory event (`memory_event_not_found`, `space_not_found`).',
            }),
          },
        },
      },
      (request) =>
        eraseContent(
          ctx,
          spaceOf(request),
          { scope: 'memory_event', eventId: request.params.eventId },
          requester(request),
        ),
    );
  };
}
