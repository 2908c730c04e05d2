import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  errorResponses,
  IdParam,
  SpaceIdParam,
  spaceOf,
  tenantOf,
  type TypedApp,
} from '@stratagate/http';
import { contextOf } from './context.ts';
import { proposeProfileChange } from './profile-proposals.ts';
import {
  createProfile,
  editProfileField,
  getProfile,
  listProfileHistory,
  listProfileProposals,
} from './profiles.ts';
import {
  ProfileCreateReply,
  ProfileEditBody,
  ProfileEditReply,
  ProfileHistoryQuery,
  ProfileHistoryReply,
  ProfileIdParam,
  ProfileReply,
  ProposalListQuery,
  ProposalListReply,
  ProposeBody,
  ProposeReply,
} from './profiles.schema.ts';

const ProfileParams = z.object({ profileId: ProfileIdParam });

/** The profile a request names, in the tenant of its API key (profiles are per tenant). */
function profileOf(request: FastifyRequest & { params: { profileId: string } }) {
  return { tenantId: tenantOf(request), profileId: request.params.profileId };
}

const NOT_FOUND =
  'The profile does not exist in the tenant of the API key (`profile_not_found`); `default` always does.';

/** MM-PRO: the resident profiles of a tenant, and the agent's proposals from a thread. */
export function profileRoutes(app: TypedApp): void {
  app.get(
    '/v1/profiles/:profileId',
    {
      schema: {
        tags: ['profile'],
        operationId: 'getProfile',
        summary: 'Read a resident profile: every field, its revision, the text recall shows',
        params: ProfileParams,
        response: { 200: ProfileReply, ...errorResponses({ 404: NOT_FOUND }) },
      },
    },
    (request) => getProfile(contextOf(request), profileOf(request)),
  );

  app.put(
    '/v1/profiles/:profileId',
    {
      schema: {
        tags: ['profile'],
        operationId: 'createProfile',
        summary: 'Create a profile (for one end user); spaces are bound to it in their settings',
        params: ProfileParams,
        response: { 200: ProfileCreateReply, 201: ProfileCreateReply, ...errorResponses() },
      },
    },
    async (request, reply) => {
      const created = await createProfile(contextOf(request), profileOf(request));
      return reply.code(created.created ? 201 : 200).send(created);
    },
  );

  app.patch(
    '/v1/profiles/:profileId',
    {
      schema: {
        tags: ['profile'],
        operationId: 'editProfileField',
        summary: 'Change one field of a profile, from the revision you read',
        description:
          'One field per change. `expectedRevision` is the revision of the field you read: if the field changed since, the answer is 409 `conflict` and nothing is written. A value over the field’s limit, or a profile over 6,000 characters in all, is 400 naming the field.',
        params: ProfileParams,
        body: ProfileEditBody,
        response: {
          200: ProfileEditReply,
          ...errorResponses({
            404: NOT_FOUND,
            409: {
              description:
                'The field changed since the revision you sent (`conflict`); nothing was written. `details` has its revision and value now.',
              example: {
                code: 'conflict',
                message:
                  'preferredLanguage changed since you read it; read the profile again and retry',
                details: {
                  conflict: true,
                  field: 'preferredLanguage',
                  revision: 'pchg_0c9a2f6e4b5d4e7f8a1b2c3d4e5f6a7b',
                  value: 'Chinese',
                },
              },
            },
            413: true,
            503: true,
          }),
        },
      },
    },
    (request) => editProfileField(contextOf(request), profileOf(request), request.body),
  );

  app.get(
    '/v1/profiles/:profileId/history',
    {
      schema: {
        tags: ['profile'],
        operationId: 'listProfileHistory',
        summary: "A profile's changes, newest first: field, old and new value, source, time",
        params: ProfileParams,
        querystring: ProfileHistoryQuery,
        response: { 200: ProfileHistoryReply, ...errorResponses({ 404: NOT_FOUND }) },
      },
    },
    (request) => listProfileHistory(contextOf(request), profileOf(request), request.query),
  );

  app.get(
    '/v1/profiles/:profileId/proposals',
    {
      schema: {
        tags: ['profile'],
        operationId: 'listProfileProposals',
        summary: "Changes agents proposed for a profile, and how the user's answer decided them",
        params: ProfileParams,
        querystring: ProposalListQuery,
        response: { 200: ProposalListReply, ...errorResponses({ 404: NOT_FOUND }) },
      },
    },
    (request) => listProfileProposals(contextOf(request), profileOf(request), request.query),
  );

  app.post(
    '/v1/spaces/:spaceId/threads/:threadId/profile/proposals',
    {
      schema: {
        tags: ['profile'],
        operationId: 'proposeProfileChange',
        summary: "Propose a change to the user's profile; their next message decides it",
        description:
          'For a change the agent inferred. The proposal names one field and its new value on the profile this space is bound to. Tell the user in your answer and ask them to agree: only an explicit yes ("agree", "yes, save it", "同意") as their next message in this thread applies it; any other next message, another edit or a newer proposal drops it. A change the user asked for explicitly goes through `remember` with `userExplicit`, or PATCH.',
        params: z.object({ spaceId: SpaceIdParam, threadId: IdParam }),
        body: ProposeBody,
        response: {
          201: ProposeReply,
          ...errorResponses({
            404: 'The space, or the profile it is bound to, does not exist (`space_not_found`, `profile_not_found`).',
            413: true,
            503: true,
          }),
        },
      },
    },
    async (request, reply) =>
      reply.code(201).send(
        await proposeProfileChange(contextOf(request), spaceOf(request), {
          threadId: request.params.threadId,
          ...request.body,
        }),
      ),
  );
}
