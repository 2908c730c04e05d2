import type { SummaryMessage } from '../../model-port.ts';
import { analyseSentence, type SentenceAnalysis } from '../nlp/analysis.ts';
import { claimsOf, mayStateClaim, type Claim } from '../nlp/claims.ts';
import { splitSentences } from '../sentences.ts';
import { cutCodePoints } from '../../text.ts';
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
import { dateDirection, type Tense } from './tense.ts';
import { findTimeExpressions, type TimeExpression } from './time-expressions.ts';

export interface Draft {
  /** The event sentence, plus a trailing remark about it when there is one. */
  sentences: SentenceView[];
  /** Where each of `sentences` stands in `messageSentences`. */
  positions: number[];
  /** Every sentence of the message, shared by its drafts (the summary's context). */
  messageSentences: readonly string[];
  message: SummaryMessage;
  /** The message's own time; null when `occurredAt` is not ISO-8601. */
  mention: MentionTime | null;
  features: SentenceFeatures;
  time: TimeExpression | undefined;
  participants: string[];
  analysis: SentenceAnalysis | null;
  claims: Claim[];
  /** The person a leading he / she / they stands for, when the block names one before. */
  antecedent: string | undefined;
  /** The message this one replies to (someone else's, just before it in the thread). */
  replyTo: { speaker: string; text: string } | undefined;
}

/** The block's named speakers, and their names as term keys (never counted as content). */
export interface People {
  knownNames: readonly string[];
  names: ReadonlySet<string>;
}

/** What one message's sentences leave for the next: the last person named (pronouns). */
export interface BlockContext {
  lastPerson: string | undefined;
  previous: SummaryMessage | undefined;
  /** Sentences tagged so far in this block (bounded by TAGGED_PER_BLOCK). */
  tagged: number;
}

/**
 * The tagger reads at most this many sentences of a block; later ones are judged by the cue
 * rules alone. A block of chat has far fewer; a pasted megabyte stays bounded in time.
 */
export const TAGGED_PER_BLOCK = 300;

/** A capitalised word after the first one, or a leading pronoun: someone may be named. */
const NAMED = /\s\p{Lu}\p{Ll}|^(?:he|she|they)\b/u;

/** How much of the message replied to an event's summary carries. */
const REPLY_CONTEXT_MAX = 400;

const LEADING_PRONOUN = /^(?:he|she|they|他|她|他们|她们)(?=\b|\s|[^\p{L}])/iu;

/**
 * The event-worthy sentences of one message, each a draft event with the time it names, in
 * the message's own time (MM-EVT-4). Sentences are analysed lazily: `mayBeEvent` is a regex
 * test, and only what passes it goes through the NLP pipeline.
 */
export function messageDrafts(
  message: SummaryMessage,
  people: People,
  context: BlockContext,
): Draft[] {
  if (message.role !== 'user' && message.role !== 'assistant') return [];
  const agent = isGenericAssistant(message);
  const speaker = personOf(message);
  const fromUser = message.role === 'user';
  const mention = parseMentionTime(message.occurredAt);
  const replyTo = replyContext(context.previous, message);
  // A named person (not an assistant, not an anonymous user) talking about their life.
  const person = fromUser && speaker !== undefined;
  const drafts: Draft[] = [];
  // The sentence just before, and the draft it became (null if it became none).
  let previous: { text: string; draft: Draft | null } | null = null;
  const messageSentences = splitSentences(message.content);
  for (const [position, text] of messageSentences.entries()) {
    const candidate = mayBeEvent(text, agent, people.knownNames, person);
    const view = candidate || CONTINUATION.test(text) ? viewSentence(text) : null;
    // The tagger runs where a claim is possible or a name may stand (people, pronouns).
    const analysis =
      candidate &&
      view &&
      !view.question &&
      context.tagged < TAGGED_PER_BLOCK &&
      (mayStateClaim(text) || NAMED.test(text))
        ? analyseSentence(text)
        : null;
    if (analysis) context.tagged += 1;
    const antecedent = analysis && LEADING_PRONOUN.test(text) ? context.lastPerson : undefined;
    const claims = analysis
      ? claimsOf(analysis, {
          ...(speaker ? { speaker } : fromUser ? { speaker: 'User' } : {}),
          ...(context.lastPerson ? { lastPerson: lastPersonIn(analysis, context) } : {}),
        })
      : [];
    const named = analysis ? personsIn(analysis) : [];
    const participants = view
      ? findParticipants(text, speaker, view.terms, people.knownNames, [
          ...(antecedent ? [antecedent] : []),
          ...named,
        ])
      : [];
    const features = view && describeSentence(view, people.names, fromUser, claims);
    const others = participants.some((p) => p !== speaker);
    if (named.length > 0) context.lastPerson = named.at(-1);
    if (!view || !features || !candidate || !isEventWorthy(view, features, agent, others, person)) {
      // A trailing remark about the event just told belongs to it ("It was so powerful.").
      const last = previous?.draft;
      if (view && last && last.sentences.length === 1 && continuesPrevious(view)) {
        last.sentences.push(view);
        last.positions.push(position);
      }
      previous = { text, draft: null };
      continue;
    }
    const direction = dateDirection(text, features.tense);
    let time = pickTime(text, mention, direction);
    // "Last week was busy. I gave a talk…": a time set by the sentence just before carries over.
    if (!time && previous && !previous.draft && !isQuestion(previous.text)) {
      time = pickTime(previous.text, mention, direction, true);
    }
    const draft: Draft = {
      sentences: [view],
      positions: [position],
      messageSentences,
      message,
      mention,
      features,
      time,
      participants,
      analysis,
      claims,
      antecedent,
      replyTo,
    };
    drafts.push(draft);
    previous = { text, draft };
  }
  context.previous = message;
  return drafts;
}

function personsIn(analysis: SentenceAnalysis): string[] {
  return analysis.entities.filter((e) => e.type === 'person').map((e) => e.text);
}

/** "Sam covers for Alex while he is away": the nearest name before the pronoun is Alex. */
function lastPersonIn(analysis: SentenceAnalysis, context: BlockContext): string {
  return personsIn(analysis).at(-1) ?? context.lastPerson ?? '';
}

/**
 * The message before, when someone else wrote it: what a reply answers ("A sunset with a lake."
 * after "What did you paint?"). Context only; the event's facts and quotes stay its own.
 */
function replyContext(
  previous: SummaryMessage | undefined,
  message: SummaryMessage,
): Draft['replyTo'] {
  if (!previous || previous.role === 'tool' || previous.role === 'system') return undefined;
  if ((previous.name ?? previous.role) === (message.name ?? message.role)) return undefined;
  const text = previous.content.trim();
  if (text === '') return undefined;
  return {
    speaker: personOf(previous) ?? (previous.role === 'user' ? 'User' : 'Assistant'),
    text: cutCodePoints(text, REPLY_CONTEXT_MAX),
  };
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
