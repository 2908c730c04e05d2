import { z } from 'zod';

/*
 * Records of the topic directory (MM-TOP). A topic job's output is a record like any model
 * output: the projector builds the directory from these, so a replay never calls a model.
 */

export const TOPIC_PARAGRAPH_KINDS = [
  'history',
  'decision',
  'change',
  'open-question',
  'scope',
] as const;
export const TopicParagraphKind = z.enum(TOPIC_PARAGRAPH_KINDS);
export type TopicParagraphKind = z.infer<typeof TopicParagraphKind>;

/** MM-TOP-6, in tie-break order. */
export const TOPIC_CATEGORIES = [
  'preferences',
  'decisions',
  'work',
  'relationships',
  'other',
] as const;
export const TopicCategory = z.enum(TOPIC_CATEGORIES);
export type TopicCategory = z.infer<typeof TopicCategory>;

/** `topic_` and 12 hex digits: decided once when a chapter is created and kept for good. */
export const TopicId = z.string().regex(/^topic_[0-9a-f]{12}$/);

const EventIds = z.array(z.string().min(1));

/** MM-TOP-3: one overview paragraph; its sources are members of its chapter. */
export const TopicParagraph = z.object({
  kind: TopicParagraphKind,
  title: z.string().min(1).max(80).optional(),
  text: z.string().min(1).max(600),
  sourceEventIds: EventIds.min(1).max(12),
});
export type TopicParagraph = z.infer<typeof TopicParagraph>;

/** An ongoing strand of a chapter ("Dependencies and build", MM-TOP-2). */
export const TopicSection = z.object({
  title: z.string().min(1).max(80),
  sourceEventIds: EventIds.min(1),
});
export type TopicSection = z.infer<typeof TopicSection>;

/** A chapter as a job left it: the whole chapter, not a diff, so the read model keeps the last. */
export const TopicChapter = z.object({
  topicId: TopicId,
  title: z.string().min(1).max(120),
  description: z.string().max(400),
  category: TopicCategory,
  /** Members, in the order the chapter lists them. */
  sourceEventIds: EventIds.min(1),
  sections: z.array(TopicSection),
  paragraphs: z.array(TopicParagraph).max(8),
  /** MM-TOP-7: SHA-256 of every input the chapter was built from, cited or not, by event id. */
  inputFingerprints: z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/)),
});
export type TopicChapter = z.infer<typeof TopicChapter>;

export const TopicJobMode = z.enum(['incremental', 'bootstrap']);
export type TopicJobMode = z.infer<typeof TopicJobMode>;

/** One batch of a topic job, completed (MM-TOP-8): 1–12 chapters, every batch event assigned. */
export const TopicsBuilt = z.object({
  type: z.literal('TopicsBuilt'),
  data: z.object({
    jobId: z.string().min(1),
    mode: TopicJobMode,
    attempt: z.number().int().positive(),
    /** The batch: ≤ 12 events, each assigned to a chapter below. */
    eventIds: EventIds.min(1).max(12),
    /** Existing chapters the job was shown (≤ 12). */
    candidateTopicIds: z.array(TopicId).max(12),
    /**
     * 1–12 when built (decideTopicCompletion); fewer, even none, once a chapter's member is
     * erased (each chapter is sealed under all its members, ADR 0046).
     */
    topics: z.array(TopicChapter).max(12),
    model: z.object({
      provider: z.string().min(1),
      model: z.string().optional(),
      promptVersion: z.string().min(1),
    }),
  }),
});
export type TopicsBuilt = z.infer<typeof TopicsBuilt>;

/** A topic batch that failed (MM-TOP-8); `nextRetryAt` null once its attempts are spent. */
export const TopicJobFailed = z.object({
  type: z.literal('TopicJobFailed'),
  data: z.object({
    jobId: z.string().min(1),
    mode: TopicJobMode,
    attempt: z.number().int().positive(),
    eventIds: EventIds.max(12),
    code: z.enum(['timeout', 'source-changed', 'invalid-output', 'worker-failed']),
    message: z.string().max(2000),
    nextRetryAt: z.string().nullable(),
  }),
});

/** Someone asked for a space's failed topic job to run again: a new cycle of attempts. */
export const TopicRetryRequested = z.object({
  type: z.literal('TopicRetryRequested'),
  data: z.object({}),
});
