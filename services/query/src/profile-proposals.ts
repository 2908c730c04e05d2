import {
  decideProfileEdit,
  decideProposal,
  type ProfileField,
  type SpaceRef,
} from '@stratagate/domain';
import type { QueryContext } from './context.ts';
import { catchUpReads } from './gate.ts';
import { threadTurns } from './read-model/profiles.queries.ts';
import { openTail } from './read-model/threads.queries.ts';
import { newProfileId, writeProfileDecision } from './profiles.ts';
import type { ProposeBody, ProposeReply } from './profiles.schema.ts';
import { requireSpace } from './spaces.ts';

/**
 * MM-PRO-4, the agent's side: a change the agent inferred is proposed on the profile the space is
 * bound to, and the user's next message in this thread decides it (the consolidator reads it when
 * it arrives). The turn the proposal is made in is `turnId` when it is recorded, else the turn in
 * progress (this thread's next): the answer is the first user message of a turn after that one.
 */
export async function proposeProfileChange(
  ctx: QueryContext,
  space: SpaceRef,
  input: { threadId: string; idempotencyKey?: string | undefined } & ProposeBody,
): Promise<ProposeReply> {
  const db = await catchUpReads(ctx, space);
  const spaceRow = await requireSpace(db, space);
  const profile = { tenantId: space.tenantId, profileId: spaceRow.profile_id };
  const { turnCount, turn } = await threadTurns(db, space, input.threadId, input.turnId ?? null);
  const afterThreadTurn = turn ?? turnCount + 1;
  const { decision, records } = await writeProfileDecision(
    ctx,
    profile,
    { threadId: input.threadId, idempotencyKey: input.idempotencyKey },
    (state, at) =>
      decideProposal(state, {
        proposalId: newProfileId('prop'),
        field: input.field,
        value: input.value,
        origin: {
          spaceId: space.spaceId,
          threadId: input.threadId,
          turnId: input.turnId ?? null,
          afterThreadTurn,
        },
        reason: input.reason ?? null,
        at,
      }),
  );
  const last = records.at(-1);
  const p = decision.proposal;
  return {
    profileId: profile.profileId,
    status: decision.status,
    proposal: p && {
      proposalId: p.proposalId,
      field: p.field,
      value: p.value,
      status: 'pending',
      resolution: null,
      spaceId: p.origin.spaceId,
      threadId: p.origin.threadId,
      afterThreadTurn: p.origin.afterThreadTurn,
      reason: p.reason,
      proposedAt: p.proposedAt,
      answerMessageId: null,
      resolvedAt: null,
    },
    note:
      decision.status === 'unchanged'
        ? `${input.field} already is "${input.value}"; there is nothing to ask.`
        : proposalNote(input.field, p!.value),
    position: last?.position ?? null,
  };
}

/** What the agent should do once it proposed a change. */
export function proposalNote(field: string, value: string): string {
  return `Say to the user, in your answer, that you would set ${field} to "${value}" and ask them to agree. Only an explicit yes as their next message applies it; anything else drops it.`;
}

/** What the agent is told once a change is saved. */
export function appliedNote(field: string): string {
  return `Saved to the profile as ${field}; every recall in this space shows it from now on.`;
}

/**
 * A change the user asked for explicitly in this thread (MM-PRO-4: applies directly), made on
 * the profile the space is bound to, on its current state. The audit row names the thread and
 * the user's latest message in its open tail.
 */
export async function applyExplicitProfileChange(
  ctx: QueryContext,
  space: SpaceRef,
  input: {
    threadId: string;
    profileId: string;
    field: ProfileField;
    value: string;
    idempotencyKey?: string | undefined;
  },
) {
  const profile = { tenantId: space.tenantId, profileId: input.profileId };
  const tail = await openTail(await catchUpReads(ctx, space), space, input.threadId);
  const lastUser = tail.filter((m) => m.role === 'user').at(-1);
  const { decision, records, state } = await writeProfileDecision(
    ctx,
    profile,
    { threadId: input.threadId, idempotencyKey: input.idempotencyKey },
    (current, at) =>
      decideProfileEdit(current, {
        field: input.field,
        value: input.value,
        source: 'user_explicit',
        sourceMessageId: lastUser?.message_id ?? null,
        origin: { spaceId: space.spaceId, threadId: input.threadId },
        changeId: newProfileId('pchg'),
        at,
      }),
  );
  return {
    modified: decision.modified,
    revision: state.fieldRevisions[input.field],
    position: records[0]?.position ?? null,
  };
}
