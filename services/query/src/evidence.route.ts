import { z } from 'zod';
import { EVENT_STATE_CHANGES, RECEIPT_CONFLICT_MESSAGE } from '@stratagate/domain';
import {
  errorResponses,
  IdParam,
  PageOffset,
  pageLimit,
  SpaceIdParam,
  spaceOf,
  type TypedApp,
} from '@stratagate/http';
import { adoptEvidence } from './adopt.ts';
import { contextOf } from './context.ts';
import {
  AdoptBody,
  AdoptReply,
  AssessBody,
  AssessReply,
  BatchListReply,
  EventStateChangeReply,
  ExpandEventBody,
  ExpandEventReply,
} from './evidence.schema.ts';
import { assessEvidence, changeEventState, expandEvent, listEvidenceBatches } from './evidence.ts';

const ThreadParams = z.object({ spaceId: SpaceIdParam, threadId: IdParam });
const NO_BATCH = {
  description:
    'No such evidence batch in the thread, or the thread has none yet (`evidence_batch_not_found`).',
  example: { code: 'evidence_batch_not_found', message: "evidence batch 'batch_9' was not found" },
};
const LAGGING =
  'The read model has not caught up with the log within 10 s; retry shortly (`projection_lagging`).';

/** Expanding an event into a batch (MM-GATE-2), and pinning or forgetting it (MM-EVT-19). */
export function eventGateRoutes(app: TypedApp): void {
  app.post(
    '/v1/spaces/:spaceId/memory-events/:eventId/expand',
    {
      schema: {
        tags: ['gate'],
        operationId: 'expandEvent',
        summary: 'Expand a memory event: opens an evidence batch holding `event:<id>`',
        params: z.object({ spaceId: SpaceIdParam, eventId: IdParam }),
        body: ExpandEventBody,
        response: {
          200: ExpandEventReply,
          ...errorResponses({
            404: 'The space does not exist, or the event is unknown, forgotten or archived (`space_not_found`, `memory_event_not_found`).',
            413: true,
          }),
        },
      },
    },
    (request) =>
      expandEvent(contextOf(request), spaceOf(request), {
        eventId: request.params.eventId,
        threadId: request.body.threadId,
      }),
  );

  app.post(
    '/v1/spaces/:spaceId/memory-events/:eventId/:change',
    {
      schema: {
        tags: ['gate'],
        operationId: 'changeEventState',
        summary: 'Pin, unpin, forget (undoable) or restore a memory event',
        description:
          'Pinned events weigh 1; forgotten events leave search, timelines, graph views and recall but keep their provenance; restore undoes a forget.',
        params: z.object({
          spaceId: SpaceIdParam,
          eventId: IdParam,
          change: z.enum(EVENT_STATE_CHANGES),
        }),
        response: {
          202: EventStateChangeReply,
          ...errorResponses({
            404: {
              description: 'The event does not exist in the space (`memory_event_not_found`).',
              example: {
                code: 'memory_event_not_found',
                message: "memory event 'evt_0123456789abcdef0123456789abcdef' was not found",
              },
            },
          }),
        },
      },
    },
    async (request, reply) =>
      reply
        .code(202)
        .send(await changeEventState(contextOf(request), spaceOf(request), request.params)),
  );
}

/** Assessing and adopting a batch, and the thread's batches (MM-GATE-3..10). */
export function batchRoutes(app: TypedApp): void {
  app.post(
    '/v1/spaces/:spaceId/threads/:threadId/assess',
    {
      schema: {
        tags: ['gate'],
        operationId: 'assessEvidence',
        summary: 'Assess whether the evidence of a batch answers the question',
        description:
          '`sufficient` stands only with ≥ 1 accepted ref from that batch and `next_strategy: answer`; rejected refs are reported with a reason. The last assessment of an unresolved batch wins.',
        params: ThreadParams,
        body: AssessBody,
        response: {
          200: AssessReply,
          ...errorResponses({
            404: NO_BATCH,
            409: {
              description:
                'The batch was already adopted (recorded) and cannot be assessed (`batch_recorded`).',
              example: {
                code: 'batch_recorded',
                message: "batch 'batch_2' is already recorded and cannot be assessed",
              },
            },
            413: true,
            503: LAGGING,
          }),
        },
      },
    },
    (request) =>
      assessEvidence(contextOf(request), spaceOf(request), {
        threadId: request.params.threadId,
        ...request.body,
      }),
  );

  app.post(
    '/v1/spaces/:spaceId/threads/:threadId/adopt',
    {
      schema: {
        tags: ['gate'],
        operationId: 'adoptEvidence',
        summary: 'Record which evidence the answer used; reinforces those memory events',
        params: ThreadParams,
        body: AdoptBody,
        response: {
          200: AdoptReply,
          ...errorResponses({
            404: NO_BATCH,
            409: {
              description:
                'The `receiptId` was already used for a different batch or refs (`receipt_conflict`).',
              example: {
                code: 'receipt_conflict',
                message: RECEIPT_CONFLICT_MESSAGE,
                details: { receiptId: 'session-43:tool:call_1' },
              },
            },
            413: true,
            422: {
              description:
                'The adoption breaks the gate (`adoption_rejected`): a malformed ref, a ref not in the batch or not accepted by its sufficient assessment (`invalid_refs`), or a new receipt on a recorded batch (`batch_recorded`); `details` lists the refs.',
              example: {
                code: 'adoption_rejected',
                message: 'adoption rejected: invalid_refs',
                details: {
                  batchId: 'batch_2',
                  batchStatus: 'unresolved',
                  invalidRefs: [
                    {
                      inputIndex: 0,
                      ref: 'event:evt_51258643dd52499bad925bf60d4251d5',
                      reason: 'not_adopted',
                      detail:
                        'event:evt_51258643dd52499bad925bf60d4251d5 was not accepted by a sufficient assessment',
                    },
                  ],
                },
              },
            },
            503: LAGGING,
          }),
        },
      },
    },
    (request) =>
      adoptEvidence(contextOf(request), spaceOf(request), {
        threadId: request.params.threadId,
        ...request.body,
      }),
  );

  app.get(
    '/v1/spaces/:spaceId/threads/:threadId/batches',
    {
      schema: {
        tags: ['gate'],
        operationId: 'listEvidenceBatches',
        summary: 'Evidence batches of a thread; unresolved ones must be closed before answering',
        params: ThreadParams,
        querystring: z.strictObject({
          status: z
            .enum(['unresolved', 'recorded', 'all'])
            .default('unresolved')
            .describe('which batches: still to close (default), closed, or all'),
          limit: pageLimit(200, 50),
          offset: PageOffset,
        }),
        response: { 200: BatchListReply, ...errorResponses({ 503: LAGGING }) },
      },
    },
    (request) =>
      listEvidenceBatches(contextOf(request), spaceOf(request), {
        threadId: request.params.threadId,
        ...request.query,
      }),
  );
}
