import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import {
  AgentMemoryEvent,
  clampTopK,
  rememberCandidate,
  rememberFingerprint,
  rememberGate,
  resolveAmbiguous,
  tokenize,
  type AmbiguousResolution,
  type DataOf,
  type DeciderOutcome,
  type RememberGate,
  type SpaceRef,
  type StoredRecord,
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
import type { ModelPort } from '@stratagate/model';
import { searchEvents } from './event-search.ts';
import { awaitProjection, catchUpReads, type EvidenceContext } from './evidence.service.ts';
import { getEvents, getSpace, openTail, rm, threadBlocks } from './read-model.queries.ts';
import { RememberBody, RememberReply } from './remember.schema.ts';

export interface RememberContext extends EvidenceContext {
  /** The optional MM-REM-4 decider; without `decideRemember`, ambiguity marks a conflict. */
  model: ModelPort | null;
  /** Hosts may disable remember (MM-REM-1). */
  enabled: boolean;
  deciderTimeoutMs?: number;
}

const DEFAULT_DECIDER_TIMEOUT_MS = 30_000;
/** How many search hits are checked for a duplicate (containment ≥ 0.85 or same fingerprint). */
const DUPLICATE_CANDIDATES = 20;
const PROVENANCE_MESSAGES = 6;

type Recorded = DataOf<'AgentMemoryRecorded'>;

/**
 * MM-REM: an agent writes a memory at once, into the agent pool, without waiting for a seal.
 * The containment gate decides against live events of both pools (found through the search
 * index, never by scanning the space); ambiguity goes to the optional model decider, called
 * outside any write, and its answer is re-checked against duplicates before the decision is
 * recorded. The record carries the decision, so replay never re-runs the gate or the model.
 */
export function rememberRoutes(ctx: RememberContext) {
  return (app: TypedApp) => {
    app.post(
      '/v1/spaces/:spaceId/threads/:threadId/remember',
      {
        schema: {
          tags: ['gate'],
          summary:
            'Remember one statement now (agent pool): reinforce a duplicate, add, or mark a conflict',
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
      async (request) => {
        if (!ctx.enabled) {
          throw new AppError(403, 'remember_disabled', 'remember is disabled on this server');
        }
        const space = { tenantId: tenantOf(request), spaceId: request.params.spaceId };
        const { threadId } = request.params;
        const body = request.body;
        const requestKey = body.requestId ? `remember:${body.requestId}` : undefined;
        if (requestKey) {
          const previous = await ctx.log.findByIdempotencyKey(space, requestKey);
          if (previous) return replay(previous, body);
        }
        const db = await catchUpReads(ctx, space);
        const spaceRow = await getSpace(db, space);
        if (!spaceRow) throw notFound('space', space.spaceId);

        const category = body.category ?? null;
        const card = rememberCandidate(body.content, category);
        const gateNow = () => runGate(ctx, space, spaceRow.turn_counter, card, body.topK);
        let { gate, rows } = await gateNow();

        let resolution: AmbiguousResolution | null = null;
        let decider: Recorded['decider'] = null;
        if (gate.outcome === 'AMBIGUOUS') {
          const matchedIds = gate.hits.map((h) => h.id);
          const decided = await decide(ctx.model, ctx.deciderTimeoutMs, {
            content: body.content,
            category,
            candidate: { title: card.title, summary: card.summary },
            matches: gate.hits.map((h) => ({
              id: h.id,
              title: rows.get(h.id)?.title ?? '',
              summary: rows.get(h.id)?.summary ?? '',
              containment: h.containment,
            })),
          });
          resolution = resolveAmbiguous(matchedIds, decided.outcome);
          decider = decided.record;
          // The decider took time: a duplicate written meanwhile wins over its answer.
          if (decided.outcome !== null) {
            await catchUpReads(ctx, space);
            const again = await gateNow();
            if (again.gate.outcome === 'REINFORCED') ({ gate, rows } = again);
          }
        }

        const provenance = await provenanceOf(ctx, space, threadId);
        const eventId = `evt_${randomUUID().replace(/-/g, '')}`;
        const occurredAt = ctx.now().toISOString();
        const outcome = await ctx.writer.write(
          space,
          { occurredAt, threadId, ...(requestKey ? { idempotencyKey: requestKey } : {}) },
          (state) => [
            {
              type: 'AgentMemoryRecorded',
              data: decisionRecord({
                body,
                threadId,
                turn: state.turnCounter,
                gate,
                resolution,
                decider,
                provenance,
                event: {
                  id: eventId,
                  ...card,
                  quotes: [],
                  sourceMessageIds: provenance.messageIds,
                  sourceBlockId: provenance.blockId,
                  catalogHints: [],
                  formedTurn: state.turnCounter,
                  temporal: {
                    mentionedAt: occurredAt,
                    eventType: card.eventType,
                    threadId,
                  },
                },
              }),
            },
          ],
        );
        if (outcome.status === 'duplicate') return replay(outcome.existing, body);
        const stored = outcome.records[0]!;
        await awaitProjection(ctx, space, stored.position);
        return answer(stored.data as Recorded, stored.position);
      },
    );
  };
}

async function runGate(
  ctx: EvidenceContext,
  space: SpaceRef,
  currentTurn: number,
  card: { title: string; summary: string },
  topK: number,
) {
  const text = `${card.title}\n${card.summary}`;
  const ranked = await searchEvents(ctx, space, currentTurn, {
    query: text,
    limit: DUPLICATE_CANDIDATES,
    offset: 0,
    agentMemoryWeight: 1,
  });
  const found = await getEvents(
    rm(ctx.db, ctx.schema),
    space,
    ranked.map((r) => r.id),
    ['active'],
  );
  const rows = new Map(found.map((r) => [r.event_id, r]));
  const live = ranked.flatMap((r) => {
    const row = rows.get(r.id);
    if (!row) return [];
    return [
      {
        id: row.event_id,
        tokens: tokenize(`${row.title}\n${row.summary}`),
        fingerprint: rememberFingerprint(row.title, row.summary),
      },
    ];
  });
  const gate: RememberGate = rememberGate({
    candidate: {
      tokens: tokenize(text),
      fingerprint: rememberFingerprint(card.title, card.summary),
    },
    live,
    searchHits: live,
    topK: clampTopK(topK),
  });
  return { gate, rows };
}

async function decide(
  model: ModelPort | null,
  timeoutMs: number | undefined,
  input: Parameters<NonNullable<ModelPort['decideRemember']>>[0],
): Promise<{ outcome: DeciderOutcome; record: Recorded['decider'] }> {
  if (!model?.decideRemember) return { outcome: null, record: null };
  try {
    const result = await model.decideRemember(input, {
      signal: AbortSignal.timeout(timeoutMs ?? DEFAULT_DECIDER_TIMEOUT_MS),
    });
    const out = result.output;
    return {
      outcome: {
        ok: true,
        action: out.action,
        targetIds: out.targetIds,
        confidence: out.confidence,
      },
      record: {
        action: out.action,
        confidence: out.confidence ?? null,
        targetIds: out.targetIds,
        downgradedFrom: null,
        error: null,
        model: {
          provider: result.provider,
          ...(result.model ? { model: result.model } : {}),
          promptVersion: result.promptVersion,
          ...(result.usage ? { usage: result.usage } : {}),
        },
      },
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      outcome: { ok: false, error: message },
      record: {
        action: null,
        confidence: null,
        targetIds: [],
        downgradedFrom: null,
        error: message.slice(0, 500),
        model: null,
      },
    };
  }
}

interface Provenance {
  kind: Recorded['provenance'];
  blockId: string | null;
  messageIds: string[];
}

/**
 * MM-REM-5, first that exists: the last ≤ 6 user/assistant messages of the thread's open tail;
 * the last ≤ 6 messages of its newest sealed block; none (the statement itself is the source).
 */
async function provenanceOf(
  ctx: EvidenceContext,
  space: SpaceRef,
  threadId: string,
): Promise<Provenance> {
  const db = rm(ctx.db, ctx.schema);
  const tail = (await openTail(db, space, threadId)).filter(
    (m) => m.role === 'user' || m.role === 'assistant',
  );
  if (tail.length > 0) {
    return {
      kind: 'open_tail',
      blockId: null,
      messageIds: tail.slice(-PROVENANCE_MESSAGES).map((m) => m.message_id),
    };
  }
  const blocks = await threadBlocks(db, space, threadId);
  const newest = blocks.at(-1);
  if (newest) {
    const messages = await db
      .selectFrom('messages as m')
      .innerJoin('turns as t', (j) =>
        j
          .onRef('t.tenant_id', '=', 'm.tenant_id')
          .onRef('t.space_id', '=', 'm.space_id')
          .onRef('t.turn_id', '=', 'm.turn_id'),
      )
      .select('m.message_id')
      .where('t.tenant_id', '=', space.tenantId)
      .where('t.space_id', '=', space.spaceId)
      .where('t.block_id', '=', newest.block_id)
      .orderBy('m.thread_turn', 'desc')
      .orderBy('m.seq', 'desc')
      .limit(PROVENANCE_MESSAGES)
      .execute();
    return {
      kind: 'sealed_block',
      blockId: newest.block_id,
      messageIds: messages.map((m) => m.message_id).reverse(),
    };
  }
  return { kind: 'none', blockId: null, messageIds: [] };
}

function decisionRecord(input: {
  body: RememberBody;
  threadId: string;
  turn: number;
  gate: RememberGate;
  resolution: AmbiguousResolution | null;
  decider: Recorded['decider'];
  provenance: Provenance;
  event: z.input<typeof AgentMemoryEvent>;
}): Recorded {
  const { body, gate, resolution, provenance } = input;
  const base = {
    requestId: body.requestId ?? `remember_${randomUUID().replace(/-/g, '')}`,
    threadId: input.threadId,
    content: body.content,
    category: body.category ?? null,
    turn: input.turn,
    matchedEventIds: gate.outcome === 'AMBIGUOUS' ? gate.hits.map((h) => h.id) : [],
    provenance: provenance.kind,
    decider: input.decider,
  };
  const written = (
    outcome: Recorded['outcome'],
    gateName: string,
    relations: { conflicts?: string[]; supersedes?: string[] },
  ): Recorded => {
    const conflicts = relations.conflicts ?? [];
    const supersedes = relations.supersedes ?? [];
    const event = AgentMemoryEvent.parse({
      ...input.event,
      formedTurn: input.turn,
      temporal: {
        ...input.event.temporal,
        conflictsWithEventIds: conflicts,
        supersedesEventIds: supersedes,
      },
    });
    return {
      ...base,
      outcome,
      gate: gateName,
      event,
      reinforcedEventId: null,
      containment: null,
      conflictsWithEventIds: conflicts,
      supersededEventIds: supersedes,
    };
  };
  if (gate.outcome === 'REINFORCED') {
    return {
      ...base,
      outcome: 'REINFORCED',
      gate: gate.exact ? 'exact-duplicate' : 'containment-duplicate',
      event: null,
      reinforcedEventId: gate.eventId,
      containment: gate.containment,
      conflictsWithEventIds: [],
      supersededEventIds: [],
      matchedEventIds: [],
    };
  }
  if (gate.outcome === 'ADDED') return written('ADDED', gate.gate, {});
  if (!resolution) throw new Error('an ambiguous remember needs a resolution');
  switch (resolution.outcome) {
    case 'IGNORED':
      return {
        ...base,
        outcome: 'IGNORED',
        gate: 'decider',
        event: null,
        reinforcedEventId: null,
        containment: null,
        conflictsWithEventIds: [],
        supersededEventIds: [],
      };
    case 'APPLIED':
      return written(resolution.action === 'MERGE' ? 'MERGED' : 'SUPERSEDED', 'decider', {
        supersedes: resolution.targetIds,
      });
    case 'CONFLICT_MARKED': {
      const record = written('CONFLICT_MARKED', resolution.reason, {
        conflicts: resolution.conflictsWithEventIds,
      });
      if (record.decider && resolution.downgradedFrom) {
        record.decider = { ...record.decider, downgradedFrom: resolution.downgradedFrom };
      }
      return record;
    }
    default: {
      const never: never = resolution;
      return never;
    }
  }
}

function replay(stored: StoredRecord, body: RememberBody) {
  const recorded = stored.data as Recorded;
  if (
    stored.type !== 'AgentMemoryRecorded' ||
    recorded.content !== body.content ||
    recorded.category !== (body.category ?? null)
  ) {
    throw conflict(
      'request_conflict',
      'this requestId was already used for a different remember request',
      { requestId: body.requestId },
    );
  }
  return answer(recorded, stored.position);
}

function answer(d: Recorded, position: number) {
  return {
    outcome: d.outcome,
    gate: d.gate,
    eventId: d.event?.id ?? null,
    reinforcedEventId: d.reinforcedEventId,
    containment: d.containment,
    matchedEventIds: d.matchedEventIds,
    conflictsWithEventIds: d.conflictsWithEventIds,
    supersededEventIds: d.supersededEventIds,
    decider: d.decider
      ? {
          action: d.decider.action,
          confidence: d.decider.confidence,
          downgradedFrom: d.decider.downgradedFrom,
          error: d.decider.error,
        }
      : null,
    provenance: d.provenance,
    requestId: d.requestId,
    position,
  };
}
