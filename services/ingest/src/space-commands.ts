import {
  decideCloseThread,
  decideConfigureSpace,
  decideRetryDerivation,
  decideRetryTopics,
  type ConfigureSpaceCommand,
  type DataOf,
  type DerivationJobName,
  type SpaceRef,
  DEFAULT_PROFILE_ID,
  profileStream,
} from '@stratagate/domain';
import { AppError, notFound } from '@stratagate/http';
import { newId } from '@stratagate/writer';
import type { IngestContext } from './context.ts';
import type {
  CloseThreadSealedReply,
  RetryReply,
  RetryTopicsReply,
  SpaceSettingsReply,
} from './turns.schema.ts';

/**
 * Closes a session (MM-SPACE-3): its open tail is sealed now as a shorter block. A thread with no
 * open turns seals nothing and appends nothing (`sealed: false`).
 */
export async function closeThread(
  ctx: IngestContext,
  space: SpaceRef,
  input: { threadId: string },
): Promise<CloseThreadSealedReply> {
  const { threadId } = input;
  const outcome = await ctx.writer.write(
    space,
    { occurredAt: ctx.now().toISOString(), threadId },
    (state) => decideCloseThread(state, { threadId, newBlockId: () => newId('blk') }),
  );
  const sealed = outcome.status === 'appended' ? outcome.records[0] : undefined;
  const data = sealed?.data as DataOf<'BlockSealed'> | undefined;
  return {
    spaceId: space.spaceId,
    threadId,
    sealed: sealed !== undefined,
    blockId: data?.blockId ?? null,
    turnRange: data ? [data.turnFrom, data.turnTo] : null,
    position: sealed?.position ?? null,
  };
}

/**
 * Configures a space's block size and fading rate (only future seals see them, MM-BLK-2) and the
 * tenant profile it reads (ADR 0050), which must exist: `default`, or one created before.
 */
export async function configureSpace(
  ctx: IngestContext,
  space: SpaceRef,
  input: ConfigureSpaceCommand,
): Promise<SpaceSettingsReply> {
  const { profileId } = input;
  if (profileId !== undefined && profileId !== DEFAULT_PROFILE_ID) {
    // A profile other than `default` starts its stream with ProfileCreated.
    if ((await ctx.log.spaceVersion(profileStream(space.tenantId, profileId))) === 0) {
      throw new AppError(
        404,
        'profile_not_found',
        `profile '${profileId}' does not exist; create it with PUT /v1/profiles/${profileId}`,
      );
    }
  }
  const outcome = await ctx.writer.write(space, { occurredAt: ctx.now().toISOString() }, (state) =>
    decideConfigureSpace(state, input),
  );
  const state = outcome.state;
  return {
    spaceId: space.spaceId,
    blockSize: state.blockSize,
    decayLambda: state.decayLambda,
    profileId: state.profileId,
    spaceVersion: state.version,
  };
}

/** MM-JOB-3: asks for a failed derivation job of a block to run again. */
export async function retryDerivation(
  ctx: IngestContext,
  space: SpaceRef,
  input: { blockId: string; job: DerivationJobName },
): Promise<RetryReply> {
  const outcome = await ctx.writer.write(space, { occurredAt: ctx.now().toISOString() }, () =>
    decideRetryDerivation(input),
  );
  const position = outcome.status === 'appended' ? (outcome.records[0]?.position ?? null) : null;
  return { blockId: input.blockId, job: input.job, position };
}

/** MM-TOP-8: asks for the space's topic job to run again after its attempts ran out. */
export async function retryTopics(ctx: IngestContext, space: SpaceRef): Promise<RetryTopicsReply> {
  const outcome = await ctx.writer.write(space, { occurredAt: ctx.now().toISOString() }, (state) =>
    decideRetryTopics(state),
  );
  if (outcome.state.version === 0) throw notFound('space', space.spaceId);
  const position = outcome.status === 'appended' ? (outcome.records[0]?.position ?? null) : null;
  return { spaceId: space.spaceId, position };
}
