import {
  expandTopic as expandTopicView,
  listTopics as listTopicViews,
  numberChapters,
  topicCoverage,
  type SpaceRef,
  type TopicCategory,
} from '@stratagate/domain';
import { notFound } from '@stratagate/http';
import { readModel, type QueryContext } from './context.ts';
import { loadTopicViews, memberRanks } from './read-model/topics.queries.ts';
import { requireSpace } from './spaces.ts';
import type { TopicDetailReply, TopicListReply } from './topics.schema.ts';

/*
 * The topic directory's reads (MM-TOP-1, MM-TOP-10): they read the read model only. No model is
 * called, no evidence batch is opened and no memory is reinforced: a topic helps an agent find
 * events; to cite one it searches them.
 */

export async function listTopics(
  ctx: QueryContext,
  space: SpaceRef,
  input: {
    query?: string;
    category?: TopicCategory;
    offset: number;
    limit: number;
    agentMemoryWeight: number;
  },
): Promise<TopicListReply> {
  const db = readModel(ctx);
  await requireSpace(db, space);
  const views = await loadTopicViews(db, space, { withAgentMemory: input.agentMemoryWeight > 0 });
  const page = listTopicViews(views, input);
  return {
    space: space.spaceId,
    navigationOnly: true,
    total: page.total,
    offset: page.offset,
    nextOffset: page.nextOffset,
    categories: page.categories,
    topics: page.topics.map(({ number, topic }) => ({
      id: topic.id,
      number,
      title: topic.title,
      description: topic.description,
      category: topic.category,
      sourceEventCount: topic.sourceEventIds.length,
      coverage: topicCoverage(topic),
      isFallback: topic.isFallback,
      pendingUpdate: topic.pendingUpdate,
    })),
  };
}

export async function expandTopic(
  ctx: QueryContext,
  space: SpaceRef,
  input: { topicId: string; agentMemoryWeight: number },
): Promise<TopicDetailReply> {
  const db = readModel(ctx);
  await requireSpace(db, space);
  const views = await loadTopicViews(db, space, { withAgentMemory: input.agentMemoryWeight > 0 });
  const numbered = numberChapters(views).find((n) => n.topic.id === input.topicId);
  if (!numbered) throw notFound('topic', input.topicId);
  const ranks = await memberRanks(db, space, numbered.topic.sourceEventIds);
  const topic = expandTopicView(numbered, (id) => ranks.get(id) ?? Number.MAX_SAFE_INTEGER);
  return {
    space: space.spaceId,
    navigationOnly: true,
    eventRetrieval: { topicId: topic.topicId, query: '', offset: 0 },
    topic,
  };
}
