import { z } from 'zod';
import { TOPIC_CATEGORIES, TOPIC_PARAGRAPH_KINDS } from '@stratagate/domain';
import { Count, responseSchema } from '@stratagate/http';
import { EVT_CI, SPACE } from './api-examples.ts';

export const TopicCategorySchema = z
  .enum(TOPIC_CATEGORIES)
  .describe('set per event, then by majority: preferences, decisions, work, relationships, other');

const Coverage = z.object({
  totalEvents: Count,
  summarizedEvents: Count.describe('members the overview paragraphs cite'),
  omittedEvents: Count,
});

const CategoryCounts = z
  .object(
    Object.fromEntries(TOPIC_CATEGORIES.map((c) => [c, Count])) as Record<
      (typeof TOPIC_CATEGORIES)[number],
      typeof Count
    >,
  )
  .describe('topics per category in the whole directory');

const TopicEntry = z.object({
  id: z.string().describe('`topic_…`, or `fallback:<eventId>` for an event no topic holds yet'),
  number: Count.describe('the chapter number, computed on every read'),
  title: z.string(),
  description: z.string(),
  category: TopicCategorySchema,
  sourceEventCount: Count,
  coverage: Coverage,
  isFallback: z.boolean(),
  pendingUpdate: z
    .boolean()
    .describe('a member changed or was forgotten; the topic is being rebuilt'),
});

const TOPIC_ID = 'topic_3f2a9c41d0b7';

export const TopicListReply = responseSchema(
  z.object({
    space: z.string(),
    navigationOnly: z
      .literal(true)
      .describe('topics help find memories; they are never evidence: search the events to cite'),
    total: Count,
    offset: Count,
    nextOffset: Count.nullable(),
    categories: CategoryCounts,
    topics: z.array(TopicEntry),
  }),
  'A page of the topic directory.',
  {
    space: SPACE,
    navigationOnly: true,
    total: 2,
    offset: 0,
    nextOffset: null,
    categories: { preferences: 0, decisions: 1, work: 1, relationships: 0, other: 0 },
    topics: [
      {
        id: TOPIC_ID,
        number: 1,
        title: 'Project X',
        description: 'Dependencies, build and CI of project X',
        category: 'decisions',
        sourceEventCount: 3,
        coverage: { totalEvents: 3, summarizedEvents: 3, omittedEvents: 0 },
        isFallback: false,
        pendingUpdate: false,
      },
      {
        id: `fallback:${EVT_CI}`,
        number: 2,
        title: 'CI pending verification',
        description: 'CI still has to be verified after the migration.',
        category: 'work',
        sourceEventCount: 1,
        coverage: { totalEvents: 1, summarizedEvents: 0, omittedEvents: 1 },
        isFallback: true,
        pendingUpdate: false,
      },
    ],
  },
);
export type TopicListReply = z.infer<typeof TopicListReply>;

const Ids = z.array(z.string()).describe('≤ 12 member event ids');

export const TopicDetailReply = responseSchema(
  z.object({
    space: z.string(),
    navigationOnly: z.literal(true),
    eventRetrieval: z
      .object({ topicId: z.string(), query: z.literal(''), offset: z.literal(0) })
      .describe("how to search this topic's events (they are the evidence, the topic is not)"),
    topic: z.object({
      topicId: z.string(),
      number: Count,
      title: z.string(),
      description: z.string(),
      category: TopicCategorySchema,
      isFallback: z.boolean(),
      pendingUpdate: z.boolean(),
      coverage: Coverage,
      overview: z.object({
        number: z.string().describe('`n.0`'),
        groups: z.array(
          z.object({
            kind: z.enum(TOPIC_PARAGRAPH_KINDS),
            title: z.string(),
            paragraphs: z.array(
              z.object({ title: z.string().optional(), text: z.string(), sourceEventIds: Ids }),
            ),
          }),
        ),
      }),
      sections: z.array(
        z.object({
          number: z.string().describe('`n.1`, `n.2`, …'),
          title: z.string(),
          sourceEventIds: Ids,
          totalSourceEvents: Count,
        }),
      ),
      sourceEventIds: Ids,
      totalSections: Count,
      omittedSections: Count,
      totalSourceEvents: Count,
      omittedSourceEvents: Count,
      omittedOverviewParagraphs: Count,
      tokens: Count.describe('estimated tokens of this answer’s topic'),
      budget: Count,
    }),
  }),
  'One topic expanded: its sections and overview paragraphs within 2,400 tokens.',
  {
    space: SPACE,
    navigationOnly: true,
    eventRetrieval: { topicId: TOPIC_ID, query: '', offset: 0 },
    topic: {
      topicId: TOPIC_ID,
      number: 1,
      title: 'Project X',
      description: 'Dependencies, build and CI of project X',
      category: 'decisions',
      isFallback: false,
      pendingUpdate: false,
      coverage: { totalEvents: 1, summarizedEvents: 1, omittedEvents: 0 },
      overview: {
        number: '1.0',
        groups: [
          {
            kind: 'open-question',
            title: 'Open questions',
            paragraphs: [
              {
                text: 'CI still has to be verified after the migration.',
                sourceEventIds: [EVT_CI],
              },
            ],
          },
        ],
      },
      sections: [
        {
          number: '1.1',
          title: 'Dependencies and build',
          sourceEventIds: [EVT_CI],
          totalSourceEvents: 1,
        },
      ],
      sourceEventIds: [EVT_CI],
      totalSections: 1,
      omittedSections: 0,
      totalSourceEvents: 1,
      omittedSourceEvents: 0,
      omittedOverviewParagraphs: 0,
      tokens: 180,
      budget: 2400,
    },
  },
);
export type TopicDetailReply = z.infer<typeof TopicDetailReply>;
