import { randomUUID } from 'node:crypto';
import {
  emptyProfileValues,
  routeRemember,
  type DataOf,
  type RememberRoute,
  type SpaceRef,
  type StoredRecord,
} from '@stratagate/domain';
import { conflict } from '@stratagate/http';
import type { QueryContext } from './context.ts';
import {
  appliedNote,
  applyExplicitProfileChange,
  proposalNote,
  proposeProfileChange,
} from './profile-proposals.ts';
import { DuplicateProfileRequest } from './profiles.ts';
import { noEvent, type RememberBody, type RememberReply } from './remember.schema.ts';

type ProfileRoute = Extract<RememberRoute, { destination: 'profile' }>;

/** A reply that wrote no memory event: the event fields are empty. */
function routed(
  fields: Pick<RememberReply, 'destination' | 'outcome' | 'gate' | 'note' | 'profile'> & {
    requestId: string | undefined;
    position: number | null;
  },
): RememberReply {
  return {
    ...fields,
    ...noEvent(),
    requestId: fields.requestId ?? `remember_${randomUUID().replace(/-/g, '')}`,
  };
}

/** The first call of a retried request was erased since (ADR 0046): nothing to answer with. */
export const requestErased = (requestId: string | undefined) =>
  conflict('request_erased', `requestId '${requestId}' was erased; send a new one`);

/** MM-REM-6: a one-off request stays in the conversation, where it already is. */
export function keptInConversation(rule: string, requestId: string | undefined): RememberReply {
  return routed({
    destination: 'conversation',
    outcome: 'NOT_STORED',
    gate: 'route:one-off',
    note: `${rule[0]!.toUpperCase()}${rule.slice(1)}: follow it in this answer. Nothing was stored; it stays in the conversation.`,
    profile: null,
    requestId,
    position: null,
  });
}

/**
 * MM-REM-6 with MM-PRO-4: a lasting personal setting goes to the profile the space is bound to —
 * as a proposal the user's next message decides, or applied at once when the call says the user
 * asked for it explicitly.
 */
export async function rememberInProfile(
  ctx: QueryContext,
  space: SpaceRef,
  input: {
    threadId: string;
    profileId: string;
    route: ProfileRoute;
    userExplicit: boolean;
    content: string;
    requestKey: string | undefined;
    requestId: string | undefined;
  },
): Promise<RememberReply> {
  const { route, profileId } = input;
  const base = {
    destination: 'profile' as const,
    gate: `route:${route.field}`,
    requestId: input.requestId,
  };
  try {
    if (input.userExplicit) {
      const applied = await applyExplicitProfileChange(ctx, space, {
        threadId: input.threadId,
        profileId,
        field: route.field,
        value: route.value,
        idempotencyKey: input.requestKey,
      });
      return routed({
        ...base,
        outcome: applied.modified ? 'PROFILE_UPDATED' : 'PROFILE_UNCHANGED',
        note: applied.modified
          ? appliedNote(route.field)
          : `The profile already has this ${route.field}; nothing changed.`,
        profile: {
          profileId,
          field: route.field,
          value: route.value,
          status: applied.modified ? 'applied' : 'unchanged',
          proposalId: null,
          revision: applied.revision,
        },
        position: applied.position,
      });
    }
    const proposed = await proposeProfileChange(ctx, space, {
      threadId: input.threadId,
      field: route.field,
      value: route.value,
      reason: `remember: ${input.content}`.slice(0, 500),
      idempotencyKey: input.requestKey,
    });
    const unchanged = proposed.status === 'unchanged';
    return routed({
      ...base,
      outcome: unchanged ? 'PROFILE_UNCHANGED' : 'PROFILE_PROPOSED',
      note: unchanged
        ? `The profile already has this ${route.field}; nothing changed.`
        : proposed.note,
      profile: {
        profileId,
        field: route.field,
        value: route.value,
        status: unchanged ? 'unchanged' : 'proposed',
        proposalId: proposed.proposal?.proposalId ?? null,
        revision: null,
      },
      position: proposed.position,
    });
  } catch (error) {
    if (error instanceof DuplicateProfileRequest) {
      if (error.existing.erased) throw requestErased(input.requestId);
      const replayed = replayProfile(error.existing, input, profileId);
      if (replayed) return replayed;
    }
    throw error;
  }
}

/**
 * The answer to a retried request that went to the profile, from what it recorded then, or null
 * when the record is not one a remember of this statement could have written.
 */
export function replayProfile(
  stored: StoredRecord,
  body: Pick<RememberBody, 'content' | 'requestId'>,
  profileId: string,
): RememberReply | null {
  const route = routeRemember(body.content, emptyProfileValues());
  if (route.destination !== 'profile') return null;
  const base = {
    destination: 'profile' as const,
    gate: `route:${route.field}`,
    requestId: body.requestId,
  };
  if (stored.type === 'ProfileChangeProposed') {
    const d = stored.data as DataOf<'ProfileChangeProposed'>;
    if (d.field !== route.field) return null;
    return routed({
      ...base,
      outcome: 'PROFILE_PROPOSED',
      note: proposalNote(d.field, d.value),
      profile: {
        profileId,
        field: d.field,
        value: d.value,
        status: 'proposed',
        proposalId: d.proposalId,
        revision: null,
      },
      position: stored.position,
    });
  }
  if (stored.type === 'ProfileFieldChanged') {
    const d = stored.data as DataOf<'ProfileFieldChanged'>;
    if (d.field !== route.field) return null;
    return routed({
      ...base,
      outcome: 'PROFILE_UPDATED',
      note: appliedNote(d.field),
      profile: {
        profileId,
        field: d.field,
        value: d.newValue,
        status: 'applied',
        proposalId: null,
        revision: d.changeId,
      },
      position: stored.position,
    });
  }
  return null;
}
