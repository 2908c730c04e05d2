import { randomUUID } from 'node:crypto';
import {
  decideErasure,
  decideForgetProposals,
  profileStream,
  type SpaceRef,
} from '@stratagate/domain';
import { notFound } from '@stratagate/http';
import { deleteImportJobs } from '@stratagate/store';
import type { ErasureTarget, PendingErasure } from '@stratagate/log';
import type { DataServices } from './context.ts';
import type { ErasureReply } from './erasure.schema.ts';
import { memoryEventExists, profilesFromConversation } from './read-model/erasure.queries.ts';

/**
 * Erases a space, a thread or one memory event's content for good (ADR 0046), in steps that can
 * each run again: note the erasure; append its record (no content: who, what, when, and the
 * counters) and delete the keys that sealed the content, under the space's lock; rebuild the
 * space's read-model rows, and those of the profiles its conversations reached, from what can
 * still be read; drop the writers' snapshots and the
 * posting cache of the space; note it done. An erasure interrupted anywhere is carried through
 * by `resumeErasures`, which every node runs at start.
 */
export async function eraseContent(
  ctx: DataServices,
  space: SpaceRef,
  target: ErasureTarget,
  requestedBy: string,
): Promise<ErasureReply> {
  await assertErasable(ctx, space, target);
  const erasure: PendingErasure = {
    erasureId: `erase_${randomUUID().replace(/-/g, '')}`,
    space,
    target,
    requestedBy,
  };
  await ctx.keys.beginErasure(erasure);
  return carryThrough(ctx, erasure);
}

/** Carries through the erasures that were begun and not completed (after a crash). */
export async function resumeErasures(ctx: DataServices): Promise<number> {
  const pending = await ctx.keys.pendingErasures();
  for (const erasure of pending) await carryThrough(ctx, erasure);
  return pending.length;
}

async function carryThrough(ctx: DataServices, erasure: PendingErasure): Promise<ErasureReply> {
  const { space, target } = erasure;
  const profiles = await forgetProposals(ctx, erasure);
  let keysErased = 0;
  const outcome = await ctx.writer.write(
    space,
    { occurredAt: ctx.now().toISOString(), idempotencyKey: `erase:${erasure.erasureId}` },
    (state) =>
      decideErasure(state, {
        erasureId: erasure.erasureId,
        target,
        requestedBy: erasure.requestedBy,
      }),
    // Before this process writes to the space again: its next records get new keys.
    async () => {
      keysErased = await ctx.keys.erase(space, target);
    },
  );
  const record = outcome.status === 'duplicate' ? outcome.existing : outcome.records[0]!;
  await ctx.snapshots?.discard(ctx.log.name, space);
  // An import not yet committed keeps its text beside the log: it goes with its space.
  if (target.scope === 'space') await deleteImportJobs(ctx.db, space);
  await ctx.reprojectSpace(space);
  for (const profileId of profiles) {
    await ctx.reprojectSpace(profileStream(space.tenantId, profileId));
  }
  ctx.postingCache?.forgetSpace(space.tenantId, space.spaceId);
  await ctx.keys.completeErasure(erasure.erasureId);
  return {
    erasureId: erasure.erasureId,
    scope: target.scope,
    spaceId: space.spaceId,
    threadId: target.scope === 'thread' ? target.threadId : null,
    eventId: target.scope === 'memory_event' ? target.eventId : null,
    requestedBy: erasure.requestedBy,
    position: record.position,
    spaceVersion: record.spaceVersion,
    keysErased,
  };
}

/**
 * The profiles an erasure of a conversation reaches (ADR 0046): proposals made in it and changes
 * said in it are sealed under its thread's keys. Its pending proposals are expired first, as a
 * record in each profile, so that no profile writer (another process's folded state included)
 * can apply one after the keys are gone. Returns the profiles whose rows are rebuilt afterwards.
 */
async function forgetProposals(ctx: DataServices, erasure: PendingErasure): Promise<string[]> {
  const { space, target } = erasure;
  if (target.scope === 'memory_event') return [];
  const from = {
    spaceId: space.spaceId,
    threadId: target.scope === 'thread' ? target.threadId : null,
  };
  const profiles = new Set(
    await profilesFromConversation(ctx.db, await ctx.liveSchema(), space, from.threadId),
  );
  // The bound profile, which may hold a proposal the read model has not applied yet.
  profiles.add((await ctx.writer.state(space)).profileId);
  const at = ctx.now().toISOString();
  for (const profileId of profiles) {
    await ctx.profiles.write(space.tenantId, profileId, { occurredAt: at }, (state) => ({
      records: decideForgetProposals(state, from, at),
      result: null,
    }));
  }
  return [...profiles].sort();
}

async function assertErasable(ctx: DataServices, space: SpaceRef, target: ErasureTarget) {
  const state = await ctx.writer.state(space);
  if (state.version === 0) throw notFound('space', space.spaceId);
  if (target.scope === 'thread' && !state.threads.has(target.threadId)) {
    throw notFound('thread', target.threadId);
  }
  if (
    target.scope === 'memory_event' &&
    !(await memoryEventExists(ctx.db, await ctx.liveSchema(), space, target.eventId))
  ) {
    throw notFound('memory_event', target.eventId);
  }
}
