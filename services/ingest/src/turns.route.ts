import { z } from 'zod';
import {
  DEFAULT_THREAD_ID,
  decideCloseThread,
  decideConfigureSpace,
  decideRecordTurn,
  type DataOf,
  type SpaceRef,
  type StoredRecord,
} from '@stratagate/domain';
import {
  conflict,
  errorResponses,
  IdParam,
  SpaceIdParam,
  tenantOf,
  type TypedApp,
} from '@stratagate/http';
import type { MessageLog } from '@stratagate/log';
import { recordBackpressureWait } from '@stratagate/telemetry';
import type { ProjectionBackpressure } from './backpressure.ts';
import { newId, type SpaceWriterService } from './space-writer.service.ts';
import {
  CloseThreadNothingReply,
  CloseThreadSealedReply,
  PostTurnBody,
  PostTurnReply,
  RetryBody,
  RetryReply,
  SpaceSettingsBody,
  SpaceSettingsReply,
  type PostTurnReply as Reply,
} from './turns.schema.ts';

export interface IngestContext {
  log: MessageLog;
  writer: SpaceWriterService;
  now: () => Date;
  /**
   * Where the projector runs in this process: a turn waits while its projection lag is over the
   * bound (ADR 0031).
   */
  backpressure?: ProjectionBackpressure;
}

const SpaceParams = z.object({ spaceId: SpaceIdParam });

export function ingestRoutes(ctx: IngestContext) {
  return (app: TypedApp) => {
    app.post(
      '/v1/spaces/:spaceId/turns',
      {
        schema: {
          tags: ['ingest'],
          summary: 'Record a finished turn of a thread',
          description:
            'Appends the turn to the space log and answers once it is durable. Sealing into blocks happens in the same append when the thread reaches the block size. The same `turnId` again answers the same body with `Idempotent-Replayed: true` and appends nothing; the same id with a different body is 409. Under overload the turn may wait before its append until projection is back within its lag bound (`STRATAGATE_MAX_PROJECTION_LAG_MS`, at most `STRATAGATE_BACKPRESSURE_MAX_WAIT_MS`; ADR 0031).',
          params: SpaceParams,
          body: PostTurnBody,
          response: {
            202: PostTurnReply,
            ...errorResponses({
              409: {
                description:
                  'The `turnId` was already recorded with a different thread or messages (`turn_id_reused`).',
                example: {
                  code: 'turn_id_reused',
                  message:
                    "turnId 'turn-0001' was already recorded with a different thread or messages",
                },
              },
              413: true,
            }),
          },
        },
      },
      async (request, reply) => {
        const space = { tenantId: tenantOf(request), spaceId: request.params.spaceId };
        const body = request.body;
        const turnId = body.turnId ?? newId('turn');
        const threadId = body.threadId ?? DEFAULT_THREAD_ID;
        const occurredAt = body.occurredAt ?? ctx.now().toISOString();
        const messages = body.messages.map((m) => ({
          role: m.role,
          ...(m.name !== undefined ? { name: m.name } : {}),
          content: m.content,
          toolCalls: (m.toolCalls ?? []).map((t) => ({ ...t })),
        }));
        if (ctx.backpressure) {
          const admission = await ctx.backpressure.admit();
          if (admission.waitedMs > 0) {
            recordBackpressureWait(
              admission.waitedMs / 1000,
              admission.timedOut ? 'timed_out' : 'admitted',
            );
          }
        }
        const outcome = await ctx.writer.write(
          space,
          { occurredAt, threadId, idempotencyKey: `turn:${turnId}` },
          (state) =>
            decideRecordTurn(state, {
              turnId,
              threadId,
              occurredAt,
              messages,
              newMessageId: () => newId('msg'),
              newBlockId: () => newId('blk'),
            }),
        );
        if (outcome.status === 'duplicate') {
          const replay = await replayAnswer(ctx.log, space, outcome.existing);
          assertSameTurn(outcome.existing, { threadId, messages });
          reply.header('idempotent-replayed', 'true');
          return reply.code(202).send(replay);
        }
        const last = outcome.records.at(-1);
        if (last) ctx.backpressure?.appended(last.position);
        return reply.code(202).send(answer(outcome.records));
      },
    );

    app.post(
      '/v1/spaces/:spaceId/threads/:threadId/close',
      {
        schema: {
          tags: ['ingest'],
          summary: 'Close a session: seal its open tail now as a (shorter) block',
          description:
            'A thread is a session (MM-SPACE-3). Its last turns stay in the open tail until N turns have gathered; when the host knows the session has ended, closing it seals the tail so those turns reach summaries, extraction and raw search. Closing a thread with no open turns answers `sealed: false` and appends nothing. Later turns start a new tail.',
          params: z.object({ spaceId: SpaceIdParam, threadId: IdParam }),
          response: {
            200: CloseThreadNothingReply,
            202: CloseThreadSealedReply,
            ...errorResponses(),
          },
        },
      },
      async (request, reply) => {
        const space = { tenantId: tenantOf(request), spaceId: request.params.spaceId };
        const { threadId } = request.params;
        const outcome = await ctx.writer.write(
          space,
          { occurredAt: ctx.now().toISOString(), threadId },
          (state) => decideCloseThread(state, { threadId, newBlockId: () => newId('blk') }),
        );
        const sealed = outcome.status === 'appended' ? outcome.records[0] : undefined;
        const data = sealed?.data as DataOf<'BlockSealed'> | undefined;
        return reply.code(sealed ? 202 : 200).send({
          spaceId: space.spaceId,
          threadId,
          sealed: sealed !== undefined,
          blockId: data?.blockId ?? null,
          turnRange: data ? [data.turnFrom, data.turnTo] : null,
          position: sealed?.position ?? null,
        });
      },
    );

    app.put(
      '/v1/spaces/:spaceId/settings',
      {
        schema: {
          tags: ['ingest'],
          summary: 'Configure a space (block size, fading λ)',
          description:
            'Affects future seals only; blocks already sealed are never re-partitioned (MM-BLK-2).',
          params: SpaceParams,
          body: SpaceSettingsBody,
          response: { 200: SpaceSettingsReply, ...errorResponses({ 413: true }) },
        },
      },
      async (request) => {
        const space = { tenantId: tenantOf(request), spaceId: request.params.spaceId };
        const outcome = await ctx.writer.write(
          space,
          { occurredAt: ctx.now().toISOString() },
          (state) => decideConfigureSpace(state, request.body),
        );
        const state = outcome.state;
        return {
          spaceId: space.spaceId,
          blockSize: state.blockSize,
          decayLambda: state.decayLambda,
          spaceVersion: state.version,
        };
      },
    );

    app.post(
      '/v1/spaces/:spaceId/blocks/:blockId/retry',
      {
        schema: {
          tags: ['ingest'],
          summary: 'Retry a failed derivation job of a block (MM-JOB-3)',
          params: z.object({ spaceId: SpaceIdParam, blockId: IdParam }),
          body: RetryBody,
          response: { 202: RetryReply, ...errorResponses({ 413: true }) },
        },
      },
      async (request, reply) => {
        const space = { tenantId: tenantOf(request), spaceId: request.params.spaceId };
        const { blockId } = request.params;
        const outcome = await ctx.writer.write(
          space,
          { occurredAt: ctx.now().toISOString() },
          () => [{ type: 'DerivationRetryRequested', data: { blockId, job: request.body.job } }],
        );
        const position =
          outcome.status === 'appended' ? (outcome.records[0]?.position ?? null) : null;
        return reply.code(202).send({ blockId, job: request.body.job, position });
      },
    );
  };
}

function answer(records: StoredRecord[]): Reply {
  const turn = records[0]!;
  const data = turn.data as DataOf<'TurnRecorded'>;
  const seal = records.find((r) => r.type === 'BlockSealed');
  return {
    turnId: data.turnId,
    threadId: data.threadId,
    position: turn.position,
    spaceVersion: turn.spaceVersion,
    spaceTurn: data.spaceTurn,
    threadTurn: data.threadTurn,
    sealedBlockId: seal ? (seal.data as DataOf<'BlockSealed'>).blockId : null,
  };
}

/** The first answer, rebuilt from the log: the turn record and the seal it caused, if any. */
async function replayAnswer(log: MessageLog, space: SpaceRef, existing: StoredRecord) {
  const next = await log.readSpace(space, existing.spaceVersion, 1);
  const caused = next.filter((r) => r.metadata.causationId === existing.metadata.recordId);
  return answer([existing, ...caused]);
}

function assertSameTurn(
  existing: StoredRecord,
  request: { threadId: string; messages: { role: string; name?: string; content: string }[] },
) {
  const data = existing.data as DataOf<'TurnRecorded'>;
  const same =
    data.threadId === request.threadId &&
    data.messages.length === request.messages.length &&
    data.messages.every((m, i) => {
      const r = request.messages[i]!;
      return m.role === r.role && m.content === r.content && (m.name ?? null) === (r.name ?? null);
    });
  if (!same) {
    throw conflict(
      'turn_id_reused',
      `turnId '${data.turnId}' was already recorded with a different thread or messages`,
    );
  }
}
