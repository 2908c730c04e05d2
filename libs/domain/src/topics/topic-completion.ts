import type { TopicChapter, TopicParagraph, TopicsBuilt } from '../records/topic-records.ts';
import type { TopicCategory, TopicJobMode } from '../records/topic-records.ts';
import { majorityCategory, newTopicId, normaliseTitle } from './topic-inputs.ts';

/** MM-TOP-8 */
export const TOPIC_BATCH_MAX_EVENTS = 12;
export const TOPIC_BATCH_MAX_CANDIDATES = 12;
export const TOPIC_MAX_PARAGRAPHS = 8;
export const TOPIC_MAX_ATTEMPTS = 3;

/** An event of a batch as the job read it. */
export interface TopicBatchEvent {
  id: string;
  fingerprint: string;
  category: TopicCategory;
  /** Over 10,000 chars and cut for the prompt: it may back only `scope` paragraphs. */
  cut: boolean;
}

/** An existing chapter shown to the job as a candidate. */
export interface TopicCandidate {
  topicId: string;
  title: string;
  description: string;
  sourceEventIds: readonly string[];
  sections: readonly { title: string; sourceEventIds: readonly string[] }[];
  paragraphs: readonly TopicParagraph[];
  inputFingerprints: Readonly<Record<string, string>>;
  /** Categories of the chapter's members already in it. */
  memberCategories: readonly TopicCategory[];
}

/** What a provider (model or offline builder) proposes for one chapter. */
export interface ProposedChapter {
  /** A candidate's id to extend it, or null for a new chapter. */
  topicId: string | null;
  title: string;
  description: string;
  /** Batch events this chapter takes. */
  sourceEventIds: string[];
  sections: { title: string; sourceEventIds: string[] }[];
  /** New paragraphs only: a candidate's paragraphs are kept verbatim before them. */
  paragraphs: TopicParagraph[];
}

export interface TopicCompletionCommand {
  jobId: string;
  mode: TopicJobMode;
  attempt: number;
  events: readonly TopicBatchEvent[];
  candidates: readonly TopicCandidate[];
  proposed: readonly ProposedChapter[];
  model: TopicsBuilt['data']['model'];
}

/** The space as it is at commit time (MM-GEN-9: re-validate, reject stale results). */
export interface TopicCompletionState {
  /** Current fingerprint of each batch event; undefined: forgotten, archived or erased. */
  fingerprintOf: (eventId: string) => string | undefined;
  /** A candidate's members as they are now: changed since the claim means a stale result. */
  candidateMembersOf: (topicId: string) => readonly string[] | undefined;
}

export type TopicFailureCode = 'timeout' | 'source-changed' | 'invalid-output' | 'worker-failed';

export type TopicCompletionDecision =
  { ok: true; record: TopicsBuilt } | { ok: false; code: TopicFailureCode; message: string };

const invalid = (message: string): TopicCompletionDecision => ({
  ok: false,
  code: 'invalid-output',
  message,
});

function mergeIds(first: readonly string[], more: readonly string[]): string[] {
  return [...new Set([...first, ...more])];
}

/**
 * MM-TOP-7/8: a topic job's result is accepted whole or not at all. It is stale when a batch
 * event or a candidate changed since the claim, and invalid unless it has 1–12 chapters, assigns
 * every batch event, names no unknown chapter and no title twice, cites only members, and keeps
 * ≤ 8 paragraphs per chapter. A candidate's members, sections and paragraphs are kept verbatim:
 * the provider only adds to them, so numbering never moves (MM-TOP-5).
 */
export function decideTopicCompletion(
  command: TopicCompletionCommand,
  state: TopicCompletionState,
): TopicCompletionDecision {
  for (const event of command.events) {
    if (state.fingerprintOf(event.id) !== event.fingerprint) {
      return { ok: false, code: 'source-changed', message: `event ${event.id} changed` };
    }
  }
  for (const candidate of command.candidates) {
    const now = state.candidateMembersOf(candidate.topicId);
    if (!now || now.join('\n') !== candidate.sourceEventIds.join('\n')) {
      return { ok: false, code: 'source-changed', message: `topic ${candidate.topicId} changed` };
    }
  }
  const { proposed } = command;
  if (proposed.length < 1 || proposed.length > TOPIC_BATCH_MAX_EVENTS) {
    return invalid(`${proposed.length} topics; 1 to 12 expected`);
  }
  const batch = new Map(command.events.map((e) => [e.id, e]));
  const candidates = new Map(command.candidates.map((c) => [c.topicId, c]));
  const assigned = new Set(proposed.flatMap((p) => p.sourceEventIds));
  const missing = command.events.filter((e) => !assigned.has(e.id));
  if (missing.length > 0)
    return invalid(`events not assigned: ${missing.map((e) => e.id).join(', ')}`);
  const titles = new Set<string>();
  const ids = new Set<string>();
  const readFingerprints = Object.fromEntries(command.events.map((e) => [e.id, e.fingerprint]));
  const topics: TopicChapter[] = [];
  for (const p of proposed) {
    const key = normaliseTitle(p.title);
    if (key === '') return invalid('a topic without a title');
    if (titles.has(key)) return invalid('two topics share a title');
    titles.add(key);
    const candidate = p.topicId === null ? undefined : candidates.get(p.topicId);
    if (p.topicId !== null && !candidate) return invalid(`unknown topic id: ${p.topicId}`);
    const unknown = p.sourceEventIds.filter((id) => !batch.has(id));
    if (unknown.length > 0) return invalid(`events outside the batch: ${unknown.join(', ')}`);
    if (p.sourceEventIds.length === 0 && !candidate) return invalid(`a new topic has no events`);
    const members = mergeIds(candidate?.sourceEventIds ?? [], p.sourceEventIds);
    const memberSet = new Set(members);
    const sections = (candidate?.sections ?? []).map((s) => ({
      title: s.title,
      sourceEventIds: [...s.sourceEventIds],
    }));
    for (const s of p.sections) {
      if (s.sourceEventIds.some((id) => !memberSet.has(id))) {
        return invalid(`a section cites an event outside its topic`);
      }
      // Same-named content shares a section (MM-TOP-2).
      const same = sections.find((old) => normaliseTitle(old.title) === normaliseTitle(s.title));
      if (same) same.sourceEventIds = mergeIds(same.sourceEventIds, s.sourceEventIds);
      else if (s.sourceEventIds.length > 0)
        sections.push({ title: s.title, sourceEventIds: s.sourceEventIds });
    }
    for (const para of p.paragraphs) {
      if (para.sourceEventIds.some((id) => !memberSet.has(id))) {
        return invalid(`a paragraph cites an event outside its topic`);
      }
      if (para.kind !== 'scope' && para.sourceEventIds.some((id) => batch.get(id)?.cut)) {
        return invalid(`a cut event backs a ${para.kind} paragraph`);
      }
    }
    const paragraphs = [...(candidate?.paragraphs ?? []), ...p.paragraphs];
    if (paragraphs.length > TOPIC_MAX_PARAGRAPHS) {
      return invalid(`${paragraphs.length} paragraphs in one topic; at most 8`);
    }
    const topicId = candidate?.topicId ?? newTopicId(command.jobId, p.title, p.sourceEventIds[0]!);
    if (ids.has(topicId)) return invalid(`topic ${topicId} proposed twice`);
    ids.add(topicId);
    topics.push({
      topicId,
      title: p.title,
      description: p.description,
      category: majorityCategory([
        ...(candidate?.memberCategories ?? []),
        ...p.sourceEventIds.map((id) => batch.get(id)!.category),
      ]),
      sourceEventIds: members,
      sections,
      paragraphs,
      inputFingerprints: { ...(candidate?.inputFingerprints ?? {}), ...readFingerprints },
    });
  }
  return {
    ok: true,
    record: {
      type: 'TopicsBuilt',
      data: {
        jobId: command.jobId,
        mode: command.mode,
        attempt: command.attempt,
        eventIds: command.events.map((e) => e.id),
        candidateTopicIds: command.candidates.map((c) => c.topicId),
        topics,
        model: command.model,
      },
    },
  };
}
