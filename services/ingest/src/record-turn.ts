import {
  DEFAULT_THREAD_ID,
  decideRecordTurn,
  isSameTurn,
  type DataOf,
  type SpaceRef,
  type StoredRecord,
} from '@stratagate/domain';
import { conflict } from '@stratagate/http';
import type { MessageLog } from '@stratagate/log';
import { recordBackpressureWait } from '@stratagate/telemetry';
import { newId } from '@stratagate/writer';
import type { IngestContext } from './context.ts';
import type { PostTurnBody, PostTurnReply } from './turns.schema.ts';

/**
 * Appends a finished turn (and the seal it completes, MM-BLK-3) and answers once it is durable.
 * The same `turnId` again with the same turn answers the first answer, rebuilt from the log
 * (`replayed`); the same id with anything different (thread, time, messages, tool calls) is
 * `turn_id_reused`.
 */
export async function recordTurn(
  ctx: IngestContext,
  space: SpaceRef,
  body: PostTurnBody,
): Promise<{ answer: PostTurnReply; replayed: boolean }> {
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
    const admission = await ctx.backpressure.admit(space);
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
    // Its thread was erased since (ADR 0046): the turn is gone, and its id stays taken.
    if (outcome.existing.erased) {
      throw conflict(
        'turn_erased',
        `turnId '${turnId}' was recorded in a thread that has been erased; send a new turnId`,
      );
    }
    const replay = await replayAnswer(ctx.log, space, outcome.existing);
    assertSameTurn(outcome.existing, { threadId, messages, occurredAt: body.occurredAt });
    return { answer: replay, replayed: true };
  }
  const last = outcome.records.at(-1);
  if (last) ctx.backpressure?.appended(last.position, space);
  return { answer: answerOf(outcome.records), replayed: false };
}

function answerOf(records: StoredRecord[]): PostTurnReply {
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
  return answerOf([existing, ...caused]);
}

function assertSameTurn(existing: StoredRecord, retry: Parameters<typeof isSameTurn>[1]): void {
  const data = existing.data as DataOf<'TurnRecorded'>;
  if (!isSameTurn(data, retry)) {
    throw conflict(
      'turn_id_reused',
      `turnId '${data.turnId}' was already recorded with a different turn; send a new turnId for a new turn`,
    );
  }
}
