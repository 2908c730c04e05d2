import type { SummaryMessage } from '../../model-port.ts';
import { splitSentences } from '../sentences.ts';
import { parseMentionTime, type MentionTime } from './civil-date.ts';
import { findParticipants, isGenericAssistant, personOf } from './participants.ts';
import {
  CONTINUATION,
  continuesPrevious,
  describeSentence,
  isEventWorthy,
  type SentenceFeatures,
} from './selection.ts';
import { isQuestion, mayBeEvent, viewSentence, type SentenceView } from './sentence-view.ts';
import type { Tense } from './tense.ts';
import { findTimeExpressions, type TimeExpression } from './time-expressions.ts';

export interface Draft {
  /** The event sentence, plus a trailing remark about it when there is one. */
  sentences: SentenceView[];
  message: SummaryMessage;
  /** The message's own time; null when `occurredAt` is not ISO-8601. */
  mention: MentionTime | null;
  features: SentenceFeatures;
  time: TimeExpression | undefined;
  participants: string[];
}

/** The block's named speakers, and their names as term keys (never counted as content). */
export interface People {
  knownNames: readonly string[];
  names: ReadonlySet<string>;
}

/**
 * The event-worthy sentences of one message, each a draft event with the time it names, in
 * the message's own time (MM-EVT-4). Sentences are analysed lazily: `mayBeEvent` is a regex
 * test, and only what passes it is segmented into words.
 */
export function messageDrafts(message: SummaryMessage, people: People): Draft[] {
  if (message.role !== 'user' && message.role !== 'assistant') return [];
  const agent = isGenericAssistant(message);
  const speaker = personOf(message);
  const fromUser = message.role === 'user';
  const mention = parseMentionTime(message.occurredAt);
  const drafts: Draft[] = [];
  // The sentence just before, and the draft it became (null if it became none).
  let previous: { text: string; draft: Draft | null } | null = null;
  for (const text of splitSentences(message.content)) {
    const candidate = mayBeEvent(text, agent, people.knownNames);
    const view = candidate || CONTINUATION.test(text) ? viewSentence(text) : null;
    const participants = view ? findParticipants(text, speaker, view.terms, people.knownNames) : [];
    const features = view && describeSentence(view, people.names, fromUser);
    const others = participants.some((p) => p !== speaker);
    if (!view || !features || !candidate || !isEventWorthy(view, features, agent, others)) {
      // A trailing remark about the event just told belongs to it ("It was so powerful.").
      const last = previous?.draft;
      if (view && last && last.sentences.length === 1 && continuesPrevious(view)) {
        last.sentences.push(view);
      }
      previous = { text, draft: null };
      continue;
    }
    let time = pickTime(text, mention, features.tense);
    // "Last week was busy. I gave a talk…": a time set by the sentence just before carries over.
    if (!time && previous && !previous.draft && !isQuestion(previous.text)) {
      time = pickTime(previous.text, mention, features.tense, true);
    }
    const draft: Draft = { sentences: [view], message, mention, features, time, participants };
    drafts.push(draft);
    previous = { text, draft };
  }
  return drafts;
}

function pickTime(
  text: string,
  mention: MentionTime | null,
  tense: Tense,
  carried = false,
): TimeExpression | undefined {
  const found = findTimeExpressions(text, mention, tense);
  if (!carried) return found.find((t) => t.resolved !== null) ?? found[0];
  // A borrowed time must fit the sentence's own grammar: "happened" never takes a future time.
  const contradicts = (t: TimeExpression) =>
    (tense === 'past' && t.resolved?.relation === 'future') ||
    (tense === 'future' && t.resolved?.relation === 'past');
  return found.find((t) => t.resolved !== null && !contradicts(t));
}
