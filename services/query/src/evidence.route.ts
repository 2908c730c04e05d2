import { z } from 'zod';
import {
  normaliseAssessment,
  RECEIPT_CONFLICT_MESSAGE,
  receiptFingerprint,
  reinforcementTargets,
  validateAdoption,
  type DataOf,
  type ReinforceableStatus,
} from '@stratagate/domain';
import {
  AppError,
  conflict,
  errorResponses,
  IdParam,
  notFound,
  SpaceIdParam,
  tenantOf,
  type TypedApp,
} from '@stratagate/http';
import { eventCard } from './memory-events.route.ts';
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
import { getEvent, getSpace, rm } from './read-model.queries.ts';
import {
  catchUpReads,
  getBatch,
  openBatch,
  unresolvedBatchIds,
  type EvidenceContext,
} from './evidence.service.ts';

const ThreadParams = z.object({ spaceId: SpaceIdParam, threadId: IdParam });
const NO_BATCH = {
  description:
    'No such evidence batch in the thread, or the thread has none yet (`evidence_batch_not_found`).',
  example: { code: 'evidence_batch_not_found', message: "evidence batch 'batch_9' was not found" },
};
const LAGGING =
  'The read model has not caught up with the log within 10 s; retry shortly (`projection_lagging`).';

export function evidenceRoutes(ctx: EvidenceContext) {
  return (app: TypedApp) => {
    app.post(
      '/v1/spaces/:spaceId/memory-events/:eventId/expand',
      {
        schema: {
          tags: ['gate'],
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
      async (request) => {
        const space = { tenantId: tenantOf(request), spaceId: request.params.spaceId };
        const db = rm(ctx.db, ctx.schema);
        const spaceRow = await getSpace(db, space);
        if (!spaceRow) throw notFound('space', space.spaceId);
        const row = await getEvent(db, space, request.params.eventId, ['active', 'superseded']);
        if (!row) throw notFound('memory_event', request.params.eventId);
        const ref = `event:${row.event_id}`;
        const { batchId } = await openBatch(ctx, space, {
          threadId: request.body.threadId,
          operation: 'expand_event',
          query: row.event_id,
          refs: [ref],
          retrievedEventIds: [],
        });
        return { batchId, evidenceRefs: [ref], event: eventCard(row, spaceRow.turn_counter) };
      },
    );

    app.post(
      '/v1/spaces/:spaceId/memory-events/:eventId/:change',
      {
        schema: {
          tags: ['gate'],
          summary: 'Pin, unpin, forget (undoable) or restore a memory event (MM-EVT-19)',
          description:
            'Pinned events weigh 1; forgotten events leave search, timelines, graph views and recall but keep their provenance; restore undoes a forget.',
          params: z.object({
            spaceId: SpaceIdParam,
            eventId: IdParam,
            change: z.enum(['pin', 'unpin', 'forget', 'restore']),
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
      async (request, reply) => {
        const space = { tenantId: tenantOf(request), spaceId: request.params.spaceId };
        const db = rm(ctx.db, ctx.schema);
        const row = await getEvent(db, space, request.params.eventId);
        if (!row) throw notFound('memory_event', request.params.eventId);
        const change = (
          { pin: 'pinned', unpin: 'unpinned', forget: 'forgotten', restore: 'restored' } as const
        )[request.params.change];
        const outcome = await ctx.writer.write(
          space,
          { occurredAt: ctx.now().toISOString() },
          () => [{ type: 'MemoryEventStateChanged', data: { eventId: row.event_id, change } }],
        );
        const position =
          outcome.status === 'appended' ? (outcome.records[0]?.position ?? null) : null;
        return reply.code(202).send({ eventId: row.event_id, change, position });
      },
    );

    app.post(
      '/v1/spaces/:spaceId/threads/:threadId/assess',
      {
        schema: {
          tags: ['gate'],
          summary: 'Assess whether a batch answers the question (MM-GATE-3..6)',
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
      async (request) => {
        const space = { tenantId: tenantOf(request), spaceId: request.params.spaceId };
        const { threadId } = request.params;
        const db = await catchUpReads(ctx, space);
        const batch = await getBatch(db, space, threadId, request.body.batchId);
        if (!batch) throw notFound('evidence_batch', request.body.batchId ?? '(latest)');
        if (batch.status === 'recorded') {
          throw conflict(
            'batch_recorded',
            `batch '${batch.batch_id}' is already recorded and cannot be assessed`,
          );
        }
        const assessment = normaliseAssessment(request.body, new Set(batch.refs));
        await ctx.writer.write(space, { occurredAt: ctx.now().toISOString(), threadId }, () => [
          {
            type: 'EvidenceAssessed',
            data: {
              batchId: batch.batch_id,
              ...assessment,
              rejectedEvidenceRefs: assessment.rejectedEvidenceRefs.map((r) => ({ ...r })),
            },
          },
        ]);
        const latest = await getBatch(db, space, threadId, undefined);
        return {
          batchId: batch.batch_id,
          batchStatus: batch.status,
          latestBatchId: latest?.batch_id ?? batch.batch_id,
          ...assessment,
        };
      },
    );

    app.post(
      '/v1/spaces/:spaceId/threads/:threadId/adopt',
      {
        schema: {
          tags: ['gate'],
          summary:
            'Record which evidence the answer used; reinforces those memory events (MM-GATE-7..9, MM-WGT)',
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
      async (request) => {
        const space = { tenantId: tenantOf(request), spaceId: request.params.spaceId };
        const { threadId } = request.params;
        const receiptId = request.body.receiptId.trim();
        const db = await catchUpReads(ctx, space);
        const batch = await getBatch(db, space, threadId, request.body.batchId);
        if (!batch) throw notFound('evidence_batch', request.body.batchId ?? '(latest)');
        const refsKey = [
          ...new Set(request.body.evidence_refs.map((r) => (typeof r === 'string' ? r.trim() : r))),
        ];
        const fingerprint = receiptFingerprint([], {
          batchId: batch.batch_id,
          refs: [...refsKey].map(String).sort(),
        });

        const previous = await ctx.log.findByIdempotencyKey(space, `receipt:${receiptId}`);
        if (previous) return replay(previous.data as DataOf<'MemoryAdopted'>, fingerprint);

        const check = validateAdoption({
          refs: request.body.evidence_refs,
          batch: {
            id: batch.batch_id,
            status: batch.status,
            refs: new Set(batch.refs),
            acceptedRefs: new Set(batch.accepted_refs),
          },
        });
        if (!check.ok) {
          throw new AppError(422, 'adoption_rejected', `adoption rejected: ${check.error}`, {
            batchId: check.batchId,
            batchStatus: check.batchStatus,
            invalidRefs: check.invalidRefs,
          });
        }
        const lookups = await reinforcementLookups(db, space, check.evidenceRefs);
        const eventIds = reinforcementTargets(check.evidenceRefs, lookups);
        const outcome = await ctx.writer.write(
          space,
          { occurredAt: ctx.now().toISOString(), threadId, idempotencyKey: `receipt:${receiptId}` },
          (state) => [
            {
              type: 'MemoryAdopted',
              data: {
                batchId: batch.batch_id,
                receiptId,
                threadId,
                turn: state.turnCounter,
                evidenceRefs: check.evidenceRefs,
                duplicateEvidenceRefs: check.duplicateEvidenceRefs,
                eventIds,
                fingerprint,
              },
            },
          ],
        );
        if (outcome.status === 'duplicate') {
          return replay(outcome.existing.data as DataOf<'MemoryAdopted'>, fingerprint);
        }
        const reread = await catchUpReads(ctx, space);
        return answer(
          outcome.records[0]!.data as DataOf<'MemoryAdopted'>,
          await unresolvedBatchIds(reread, space, threadId),
        );

        async function replay(recorded: DataOf<'MemoryAdopted'>, incoming: string) {
          if (recorded.fingerprint !== incoming) {
            throw conflict('receipt_conflict', RECEIPT_CONFLICT_MESSAGE, { receiptId });
          }
          return answer(recorded, await unresolvedBatchIds(db, space, threadId));
        }
      },
    );

    app.get(
      '/v1/spaces/:spaceId/threads/:threadId/batches',
      {
        schema: {
          tags: ['gate'],
          summary:
            'Evidence batches of a thread; unresolved ones must be closed before answering (MM-GATE-10)',
          params: ThreadParams,
          querystring: z.object({
            status: z.enum(['unresolved', 'recorded', 'all']).default('unresolved'),
          }),
          response: { 200: BatchListReply, ...errorResponses({ 503: LAGGING }) },
        },
      },
      async (request) => {
        const space = { tenantId: tenantOf(request), spaceId: request.params.spaceId };
        const db = await catchUpReads(ctx, space);
        let q = db
          .selectFrom('evidence_batches')
          .selectAll()
          .where('tenant_id', '=', space.tenantId)
          .where('space_id', '=', space.spaceId)
          .where('thread_id', '=', request.params.threadId);
        if (request.query.status !== 'all') q = q.where('status', '=', request.query.status);
        const rows = await q.orderBy('opened_position').execute();
        return {
          batches: rows.map((b) => ({
            batchId: b.batch_id,
            operation: b.operation,
            query: b.query,
            status: b.status,
            verdict: b.verdict,
            evidenceRefs: b.refs,
            acceptedRefs: b.accepted_refs,
            openedAt: b.opened_at,
          })),
        };
      },
    );
  };
}

function answer(d: DataOf<'MemoryAdopted'>, unresolved: string[]) {
  return {
    batchId: d.batchId,
    batchStatus: 'recorded' as const,
    receiptId: d.receiptId,
    incremented: d.eventIds.length,
    evidenceRefs: d.evidenceRefs,
    duplicateEvidenceRefs: d.duplicateEvidenceRefs,
    eventIds: d.eventIds,
    citations: d.evidenceRefs.map((ref) => ({ evidenceRef: ref, batchId: d.batchId })),
    unresolvedBatchIds: unresolved,
  };
}

/** Statuses of cited events and provenance of cited graph nodes, fetched once for the pure rule. */
async function reinforcementLookups(
  db: Awaited<ReturnType<typeof catchUpReads>>,
  space: { tenantId: string; spaceId: string },
  refs: string[],
) {
  const eventIds = refs.filter((r) => r.startsWith('event:')).map((r) => r.slice('event:'.length));
  const nodeIds = refs
    .filter((r) => r.startsWith('graph-node:'))
    .map((r) => r.slice('graph-node:'.length).replace(/:expanded$/, ''));
  const nodes =
    nodeIds.length === 0
      ? []
      : await db
          .selectFrom('graph_nodes')
          .select(['node_id', 'source_event_ids'])
          .where('tenant_id', '=', space.tenantId)
          .where('space_id', '=', space.spaceId)
          .where('node_id', 'in', nodeIds)
          .execute();
  const allEvents = [...new Set([...eventIds, ...nodes.flatMap((n) => n.source_event_ids)])];
  const statuses =
    allEvents.length === 0
      ? []
      : await db
          .selectFrom('memory_events')
          .select(['event_id', 'status'])
          .where('tenant_id', '=', space.tenantId)
          .where('space_id', '=', space.spaceId)
          .where('event_id', 'in', allEvents)
          .execute();
  const status = new Map(statuses.map((s) => [s.event_id, s.status as ReinforceableStatus]));
  const provenance = new Map(nodes.map((n) => [n.node_id, n.source_event_ids]));
  return {
    eventStatus: (id: string) => status.get(id),
    graphNodeProvenance: (id: string) => provenance.get(id),
  };
}
