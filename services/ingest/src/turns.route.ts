import { z } from 'zod';
import { errorResponses, IdParam, SpaceIdParam, spaceOf, type TypedApp } from '@stratagate/http';
import type { IngestContext } from './context.ts';
import { recordTurn } from './record-turn.ts';
import { closeThread, configureSpace, retryDerivation, retryTopics } from './space-commands.ts';
import {
  CloseThreadNothingReply,
  CloseThreadSealedReply,
  PostTurnBody,
  PostTurnReply,
  RetryBody,
  RetryReply,
  RetryTopicsReply,
  SpaceSettingsBody,
  SpaceSettingsReply,
} from './turns.schema.ts';

const SpaceParams = z.object({ spaceId: SpaceIdParam });

/** The ingest service as one Fastify plugin: turns, sessions, settings and job retries. */
export function ingestPlugin(ctx: IngestContext) {
  return async (app: TypedApp): Promise<void> => {
    app.post(
      '/v1/spaces/:spaceId/turns',
      {
        schema: {
          tags: ['ingest'],
          operationId: 'recordTurn',
          summary: 'Record a finished turn of a thread',
          description:
            'Appends the turn to the space log and answers once it is durable. Sealing into blocks happens in the same append when the thread reaches the block size. The same `turnId` again with the same turn answers the first answer with `Idempotent-Replayed: true` and appends nothing; the same id with anything different (thread, `occurredAt`, a message or a tool call) is 409. Under overload the turn may wait before its append until projection is back within its lag bound (`STRATAGATE_MAX_PROJECTION_LAG_MS`, at most `STRATAGATE_BACKPRESSURE_MAX_WAIT_MS`; ADR 0031).',
          params: SpaceParams,
          body: PostTurnBody,
          response: {
            202: PostTurnReply,
            ...errorResponses({
              409: {
                description:
                  'The `turnId` was already recorded with a different turn: another thread, time, message or tool call (`turn_id_reused`), or in a thread that has since been erased (`turn_erased`).',
                example: {
                  code: 'turn_id_reused',
                  message:
                    "turnId 'turn-0001' was already recorded with a different turn; send a new turnId for a new turn",
                },
              },
              413: true,
            }),
          },
        },
      },
      async (request, reply) => {
        const { answer, replayed } = await recordTurn(ctx, spaceOf(request), request.body);
        if (replayed) reply.header('idempotent-replayed', 'true');
        return reply.code(202).send(answer);
      },
    );

    app.post(
      '/v1/spaces/:spaceId/threads/:threadId/close',
      {
        schema: {
          tags: ['ingest'],
          operationId: 'closeThread',
          summary: 'Close a session: seal its open tail now as a (shorter) block',
          description:
            'A thread is a session. Its last turns stay in the open tail until N turns have gathered; when the host knows the session has ended, closing it seals the tail so those turns reach summaries, extraction and raw search. Closing a thread with no open turns answers `sealed: false` and appends nothing. Later turns start a new tail.',
          params: z.object({ spaceId: SpaceIdParam, threadId: IdParam }),
          response: {
            200: CloseThreadNothingReply,
            202: CloseThreadSealedReply,
            ...errorResponses(),
          },
        },
      },
      async (request, reply) => {
        const closed = await closeThread(ctx, spaceOf(request), request.params);
        return reply.code(closed.sealed ? 202 : 200).send(closed);
      },
    );

    app.put(
      '/v1/spaces/:spaceId/settings',
      {
        schema: {
          tags: ['ingest'],
          operationId: 'configureSpace',
          summary: 'Configure a space (block size, fading λ, the profile it reads)',
          description:
            'Block size and λ affect future seals only; blocks already sealed are never re-partitioned. `profileId` binds the space to a resident profile of your tenant: every recall in the space includes that profile, and no other.',
          params: SpaceParams,
          body: SpaceSettingsBody,
          response: {
            200: SpaceSettingsReply,
            ...errorResponses({
              404: 'The profile named does not exist in your tenant (`profile_not_found`).',
              413: true,
            }),
          },
        },
      },
      (request) => configureSpace(ctx, spaceOf(request), request.body),
    );

    app.post(
      '/v1/spaces/:spaceId/blocks/:blockId/retry',
      {
        schema: {
          tags: ['ingest'],
          operationId: 'retryDerivation',
          summary: 'Run a failed summary, extraction or graph job of a block again',
          params: z.object({ spaceId: SpaceIdParam, blockId: IdParam }),
          body: RetryBody,
          response: { 202: RetryReply, ...errorResponses({ 413: true }) },
        },
      },
      async (request, reply) =>
        reply.code(202).send(
          await retryDerivation(ctx, spaceOf(request), {
            blockId: request.params.blockId,
            job: request.body.job,
          }),
        ),
    );

    app.post(
      '/v1/spaces/:spaceId/topics/retry',
      {
        schema: {
          tags: ['ingest'],
          operationId: 'retryTopics',
          summary: "Run the space's failed topic job again, with a new set of attempts",
          params: z.object({ spaceId: SpaceIdParam }),
          response: {
            202: RetryTopicsReply,
            ...errorResponses({
              404: 'The space does not exist in the tenant of the API key (`space_not_found`).',
              413: true,
            }),
          },
        },
      },
      async (request, reply) => reply.code(202).send(await retryTopics(ctx, spaceOf(request))),
    );
  };
}
