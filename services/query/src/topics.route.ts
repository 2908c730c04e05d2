import { z } from 'zod';
import {
  errorResponses,
  IdParam,
  PageOffset,
  pageLimit,
  SpaceIdParam,
  spaceOf,
  type TypedApp,
} from '@stratagate/http';
import { contextOf } from './context.ts';
import { expandTopic, listTopics } from './topics.ts';
import { TopicCategorySchema, TopicDetailReply, TopicListReply } from './topics.schema.ts';

/** As in event search: 0 leaves agent-recorded memory out of the directory too. */
const AgentWeight = z.coerce
  .number()
  .min(0)
  .max(5)
  .default(1)
  .describe(
    'weight of agent-recorded memory; 0 hides chapters holding any and lists their other events on their own',
  );

const ListQuery = z.strictObject({
  query: z
    .string()
    .max(500)
    .optional()
    .describe('words to rank topics by, over their titles and descriptions'),
  category: TopicCategorySchema.optional().describe('only topics of this category'),
  offset: PageOffset,
  limit: pageLimit(20, 12),
  agentMemoryWeight: AgentWeight,
});

export function topicRoutes(app: TypedApp): void {
  app.get(
    '/v1/spaces/:spaceId/topics',
    {
      schema: {
        tags: ['query'],
        operationId: 'listTopics',
        summary: 'List the topic directory: what the memory holds, by chapter (no evidence)',
        params: z.object({ spaceId: SpaceIdParam }),
        querystring: ListQuery,
        response: {
          200: TopicListReply,
          ...errorResponses({
            404: 'The space does not exist in the tenant of the API key (`space_not_found`).',
          }),
        },
      },
    },
    (request) => listTopics(contextOf(request), spaceOf(request), request.query),
  );

  app.get(
    '/v1/spaces/:spaceId/topics/:topicId',
    {
      schema: {
        tags: ['query'],
        operationId: 'expandTopic',
        summary: 'Expand a topic: its sections and overview, and how to search its events',
        params: z.object({ spaceId: SpaceIdParam, topicId: IdParam }),
        querystring: z.strictObject({ agentMemoryWeight: AgentWeight }),
        response: {
          200: TopicDetailReply,
          ...errorResponses({
            404: 'The space or the topic does not exist (`space_not_found`, `topic_not_found`).',
          }),
        },
      },
    },
    (request) =>
      expandTopic(contextOf(request), spaceOf(request), {
        ...request.params,
        agentMemoryWeight: request.query.agentMemoryWeight,
      }),
  );
}
