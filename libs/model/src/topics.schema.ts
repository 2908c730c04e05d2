import { z } from 'zod';
import { TopicParagraphKind } from '@stratagate/domain';

/**
 * What a topic provider (a model or the offline builder) proposes for one batch (MM-TOP-8). It is
 * only a proposal: `decideTopicCompletion` accepts it whole or refuses it.
 */
export const ProposedTopicParagraph = z.object({
  kind: TopicParagraphKind,
  title: z.string().min(1).max(80).optional(),
  text: z.string().min(1).max(600),
  sourceEventIds: z.array(z.string().min(1)).min(1).max(12),
});

export const ProposedTopic = z.object({
  /** A candidate's id to add to it; null for a new chapter. */
  topicId: z.string().nullable(),
  title: z.string().min(1).max(120),
  description: z.string().max(400),
  sourceEventIds: z.array(z.string().min(1)),
  sections: z
    .array(z.object({ title: z.string().min(1).max(80), sourceEventIds: z.array(z.string()) }))
    .max(12),
  paragraphs: z.array(ProposedTopicParagraph).max(8),
});
export type ProposedTopic = z.infer<typeof ProposedTopic>;

export const TopicProposal = z.object({ topics: z.array(ProposedTopic).min(1).max(12) });
export type TopicProposal = z.infer<typeof TopicProposal>;

/** An entity the graph tied to an event (MM-GRF): a lasting subject a chapter may be named after. */
export interface TopicEntity {
  name: string;
  type: 'person' | 'project' | 'organization' | 'tool' | 'place';
}

/** An event as a topic job shows it: compact, no quotes or source ids (MM-TOP-8). */
export interface TopicSourceEvent {
  id: string;
  title: string;
  summary: string;
  tags: string[];
  catalogHints: string[];
  participants: string[];
  eventType: string;
  status: string;
  criticality: string;
  /** When it happened or was mentioned, for ordering and the prompt. */
  when?: string;
  supersedesEventIds: string[];
  relatedEventIds: string[];
  entities: TopicEntity[];
  /** Cut for length: may back only `scope` paragraphs. */
  cut: boolean;
}

/** An existing chapter shown to the job (≤ 4 of its paragraphs, its first and last members). */
export interface TopicCandidateInput {
  topicId: string;
  title: string;
  description: string;
  /** Its sections, with their members' ids (a linked event joins its strand). */
  sections: { title: string; eventIds: string[] }[];
  paragraphs: { kind: string; title?: string; text: string }[];
  /** Paragraphs it already has: the provider may add only 8 minus this many. */
  paragraphCount: number;
  /** Every member's id: a batch event listed here was in the chapter and goes back to it. */
  memberIds: string[];
  members: { id: string; title: string; tags: string[]; entities: TopicEntity[] }[];
}

export interface TopicBuildInput {
  events: TopicSourceEvent[];
  candidates: TopicCandidateInput[];
}
