import { randomUUID } from 'node:crypto';
import {
  clampTopK,
  decideRemember,
  rememberCandidate,
  rememberFingerprint,
  rememberGate,
  rememberTokens,
  isNegated,
  resolveAmbiguous,
  routeRemember,
  type AmbiguousResolution,
  type DataOf,
  type DeciderOutcome,
  type RememberGate,
  type RememberProvenance,
  type SpaceRef,
  type StoredRecord,
} from '@stratagate/domain';
import { AppError, conflict } from '@stratagate/http';
import type { ModelPort } from '@stratagate/model';
import { readModel, type QueryContext } from './context.ts';
import { searchEvents } from './event-search.ts';
import { awaitProjection, catchUpReads } from './gate.ts';
import { lastBlockMessageIds } from './read-model/blocks.queries.ts';
import { getEvents } from './read-model/events.queries.ts';
import { openTail, threadBlocks } from './read-model/threads.queries.ts';
import type { RememberBody, RememberReply } from './remember.schema.ts';
import {
  keptInConversation,
  rememberInProfile,
  replayProfile,
  requestErased,
} from './remember-profile.ts';
import { getProfileRow } from './read-model/profiles.queries.ts';
import { profileValues, streamOf } from './profiles.ts';
import { requireSpace } from './spaces.ts';

const DEFAULT_DECIDER_TIMEOUT_MS = 30_000;
/** How many search hits are checked for a duplicate (containment ≥ 0.85 or same fingerprint). */
const DUPLICATE_CANDIDATES = 20;
const PROVENANCE_MESSAGES = 6;

type Recorded = DataOf<'AgentMemoryRecorded'>;
const newId = (prefix: string) => `${prefix}_${randomUUID().replace(/-/g, '')}`;

/**
 * MM-REM-6 first: the statement goes where it belongs — a lasting personal setting to the
 * profile the space is bound to, a one-off request nowhere (it is in the conversation already),
 * a fact to the memory events. The reply says which.
 */
export async function rememberStatement(
  ctx: QueryContext,
  space: SpaceRef,
  input: { threadId: string } & RememberBody,
): Promise<RememberReply> {
  if (!ctx.remember.enabled) {
    throw new AppError(403, 'remember_disabled', 'remember is disabled on this server');
  }
  const { threadId, ...body } = input;
  const requestKey = body.requestId ? `remember:${body.requestId}` : undefined;
  const db = await catchUpReads(ctx, space);
  const spaceRow = await requireSpace(db, space);
  const profile = { tenantId: space.tenantId, profileId: spaceRow.profile_id };
  if (requestKey) {
    const previous =
      (await ctx.log.findByIdempotencyKey(space, requestKey)) ??
      (await ctx.log.findByIdempotencyKey(streamOf(profile), requestKey));
    if (previous) return replay(previous, body, profile.profileId);
  }
  const route = routeRemember(body.content, profileValues(await getProfileRow(db, profile)));
  switch (route.destination) {
    case 'conversation':
      return keptInConversation(route.rule, body.requestId);
    case 'profile':
      return rememberInProfile(ctx, space, {
        threadId,
        profileId: profile.profileId,
        route,
        userExplicit: body.userExplicit,
        content: body.content,
        requestKey,
        requestId: body.requestId,
      });
    case 'event':
      // The gate and its commit, one call at a time per space (MM-REM-3).
      return ctx.writer.lane(space, 'remember', () =>
        rememberEvent(ctx, space, threadId, body, requestKey),
      );
    default: {
      const never: never = route;
      return never;
    }
  }
}

/** How often a remember decided on events that changed before its commit is decided again. */
const STALE_ATTEMPTS = 4;

/**
 * MM-REM-1..5: an agent writes a memory at once, into the agent pool, without waiting for a
 * seal. The containment gate decides against live events of both pools (found through the
 * search index, never by scanning the space); ambiguity goes to the optional model decider,
 * called outside any write. The commit checks that no memory event changed since the gate read
 * them (another process may remember too): if one did, the gate runs again. The record carries
 * the decision, so replay never re-runs the gate or the model.
 */
async function rememberEvent(
  ctx: QueryContext,
  space: SpaceRef,
  threadId: string,
  body: RememberBody,
  requestKey: string | undefined,
): Promise<RememberReply> {
  const category = body.category ?? null;
  const card = rememberCandidate(body.content, category);
  // The decider's answer, kept across attempts (its type named, as the loop reassigns it).
  let asked = null as { hitIds: string; decided: Awaited<ReturnType<typeof decide>> } | null;
  for (let attempt = 1; attempt <= STALE_ATTEMPTS; attempt++) {
    // Every record up to `seen` is in the log, so the read model caught up below includes it.
    const seen = (await ctx.writer.state(space)).version;
    const db = await catchUpReads(ctx, space);
    const spaceRow = await requireSpace(db, space);
    const { gate, rows } = await runGate(ctx, space, spaceRow.turn_counter, card, body.topK);

    let resolution: AmbiguousResolution | null = null;
    let decider: Recorded['decider'] = null;
    if (gate.outcome === 'AMBIGUOUS') {
      const hitIds = gate.hits.map((h) => h.id).join(' ');
      // The same question again (after a stale commit) is not asked twice.
      if (asked?.hitIds !== hitIds) {
        const decided = await decide(ctx.remember.model, ctx.remember.deciderTimeoutMs, {
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
        asked = { hitIds, decided };
      }
      resolution = resolveAmbiguous(
        gate.hits.map((h) => h.id),
        asked!.decided.outcome,
      );
      decider = asked!.decided.record;
    }

    const provenance = await provenanceOf(ctx, space, threadId);
    const eventId = newId('evt');
    const occurredAt = ctx.now().toISOString();
    const outcome = await ctx.writer.write(
      space,
      { occurredAt, threadId, ...(requestKey ? { idempotencyKey: requestKey } : {}) },
      (state) =>
        // Memory events changed after the gate read them: decide again on what is there now.
        state.memoryVersion > seen
          ? []
          : decideRemember(state, {
              requestId: body.requestId ?? newId('remember'),
              threadId,
              content: body.content,
              category,
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
                temporal: { mentionedAt: occurredAt, eventType: card.eventType, threadId },
              },
            }),
    );
    if (outcome.status === 'duplicate') {
      if (outcome.existing.erased) throw requestErased(body.requestId);
      return replay(outcome.existing, body, null);
    }
    const stored = outcome.records[0];
    if (!stored) continue;
    await awaitProjection(ctx, space, stored.position);
    return answer(stored.data as Recorded, stored.position);
  }
  throw new AppError(
    503,
    'memory_busy',
    "the space's memory kept changing while this statement was being checked; retry shortly",
  );
}

async function runGate(
  ctx: QueryContext,
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
    readModel(ctx),
    space,
    ranked.map((r) => r.id),
    ['active'],
  );
  const rows = new Map(found.map((r) => [r.event_id, r]));
  const live = ranked.flatMap((r) => {
    const row = rows.get(r.id);
    if (!row) return [];
    const text = `${row.title}\n${row.summary}`;
    return [
      {
        id: row.event_id,
        tokens: rememberTokens(text),
        fingerprint: rememberFingerprint(row.title, row.summary),
        negated: isNegated(text),
      },
    ];
  });
  const gate: RememberGate = rememberGate({
    candidate: {
      tokens: rememberTokens(text),
      fingerprint: rememberFingerprint(card.title, card.summary),
      negated: isNegated(text),
    },
    live,
    searchHits: live,
    topK: clampTopK(topK),
    // Without a decider, a hit the statement only restates is reinforced, not a conflict.
    agreementByRule: !ctx.remember.model?.decideRemember,
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

/**
 * MM-REM-5, first that exists: the last ≤ 6 user/assistant messages of the thread's open tail;
 * the last ≤ 6 messages of its newest sealed block; none (the statement itself is the source).
 */
async function provenanceOf(
  ctx: QueryContext,
  space: SpaceRef,
  threadId: string,
): Promise<RememberProvenance> {
  const db = readModel(ctx);
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
  const newest = (await threadBlocks(db, space, threadId)).at(-1);
  if (newest) {
    return {
      kind: 'sealed_block',
      blockId: newest.block_id,
      messageIds: await lastBlockMessageIds(db, space, newest.block_id, PROVENANCE_MESSAGES),
    };
  }
  return { kind: 'none', blockId: null, messageIds: [] };
}

function replay(stored: StoredRecord, body: RememberBody, profileId: string | null): RememberReply {
  if (stored.erased) throw requestErased(body.requestId);
  if (stored.type !== 'AgentMemoryRecorded') {
    // A retried request that went to the profile: its record is the change or the proposal.
    const replayed = profileId ? replayProfile(stored, body, profileId) : null;
    if (replayed) return replayed;
    throw requestConflict(body);
  }
  const recorded = stored.data as Recorded;
  if (recorded.content !== body.content || recorded.category !== (body.category ?? null)) {
    throw requestConflict(body);
  }
  return answer(recorded, stored.position);
}

const requestConflict = (body: RememberBody) =>
  conflict('request_conflict', 'this requestId was already used for a different remember request', {
    requestId: body.requestId,
  });

function answer(d: Recorded, position: number): RememberReply {
  return {
    destination: 'event',
    note:
      d.outcome === 'IGNORED'
        ? 'Memory already holds this; nothing was written.'
        : 'Kept as a memory event, recalled when it is relevant.',
    profile: null,
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
