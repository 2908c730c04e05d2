import { ExtractionOutput, type EventType, type ExtractedEvent } from '../../extraction.schema.ts';
import type { ExtractionInput } from '../../model-port.ts';
import { codePointLength } from '../../text.ts';
import { criticalityOf, scopeOf } from './cues.ts';
import { buildQuotes, buildSummary, buildTags, buildTitle } from './event-text.ts';
import { messageDrafts, type BlockContext, type Draft, type People } from './message-drafts.ts';
import { claimCriticality } from './claim-relations.ts';
import { personOf } from './participants.ts';
import { prepareTimeline, relate, termKeys, type PreparedEntry } from './relations.ts';
import { viewSentence, type SentenceView } from './sentence-view.ts';
import type { Tense } from './tense.ts';
import type { TimeExpression } from './time-expressions.ts';

/** Bump when the heuristic changes what it outputs (MM-EVT-20: old events stay as they were). */
export const OFFLINE_EXTRACT_PROMPT_VERSION = 'offline-extract@3';

/** A block of chat yields a handful of events; past this many the weakest are left out. */
const MAX_EVENTS = 40;

/**
 * The offline memory-event extractor: deterministic, extractive, no clock. Each event-worthy
 * sentence of a user or assistant message becomes one event, timed against the message it
 * came from (MM-EVT-4), related only to the timeline it was shown (MM-EVT-15).
 */
export function extractEventsOffline(input: ExtractionInput): ExtractionOutput {
  const { messages } = input;
  const knownNames = unique(messages.map(personOf).filter((n): n is string => n !== undefined));
  const names = new Set(knownNames.flatMap((n) => termKeys(n, new Set())));
  const people: People = { names, knownNames };
  // The previous block's last message: what the block's first message may reply to.
  const before = input.previous?.lastMessage;
  const context: BlockContext = {
    tagged: 0,
    lastPerson: undefined,
    previous: before && {
      messageId: '',
      role: before.role,
      ...(before.name ? { name: before.name } : {}),
      content: before.content,
      occurredAt: '',
    },
  };
  const drafts = messages.flatMap((message) =>
    joinStatements(messageDrafts(message, people, context)),
  );
  const timeline = prepareTimeline(input.timeline, names);
  const events = strongest(drafts).map((d) => toEvent(d, timeline, names));
  return ExtractionOutput.parse({ events: mergeIdentical(events) });
}

/**
 * One message tells one thing more often than several: its event-worthy sentences become one
 * event, the first sentence its title. A sentence that states a fact of its own (a claim: a
 * diet, an owner, a date) stays an event by itself, so it can replace or be replaced alone.
 */
function joinStatements(drafts: Draft[]): Draft[] {
  const out: Draft[] = [];
  let told: Draft | undefined;
  for (const draft of drafts) {
    if (draft.claims.length > 0) {
      out.push(draft);
      continue;
    }
    if (!told) {
      told = { ...draft, sentences: [...draft.sentences], positions: [...draft.positions] };
      out.push(told);
      continue;
    }
    told.sentences.push(...draft.sentences);
    told.positions.push(...draft.positions);
    told.participants = unique([...told.participants, ...draft.participants]).slice(0, 8);
    told.time ??= draft.time;
    if (draft.features.score > told.features.score) {
      told.features = {
        ...draft.features,
        eventType:
          told.features.eventType === 'other' ? draft.features.eventType : told.features.eventType,
      };
    }
  }
  return out;
}

/** Keep the best-scored drafts when a block has too many, in their original order. */
function strongest(drafts: Draft[]): Draft[] {
  if (drafts.length <= MAX_EVENTS) return drafts;
  const ranked = drafts
    .map((d, i) => ({ d, i }))
    .sort((a, b) => b.d.features.score - a.d.features.score || a.i - b.i)
    .slice(0, MAX_EVENTS);
  return ranked.sort((a, b) => a.i - b.i).map(({ d }) => d);
}

function toEvent(
  draft: Draft,
  timeline: readonly PreparedEntry[],
  names: ReadonlySet<string>,
): ExtractedEvent {
  const { message, mention, features, time } = draft;
  const first = draft.sentences[0] as SentenceView;
  const speaker = personOf(message);
  const fromUser = message.role === 'user';
  const texts = draft.sentences.map((s) => s.text);
  const status = statusOf(features.tense, time);
  const eventType = settleType(features.eventType, status);
  const scope = scopeOf(first.text, fromUser);
  const terms = draft.sentences.flatMap((s) => s.terms).filter((t) => !names.has(t.key));
  const label = speaker ?? (fromUser ? 'User' : 'Assistant');
  return {
    title: buildTitle(first.text, speaker, time?.text, draft.antecedent),
    summary: buildSummary(label, texts, draft.replyTo, surroundingSentences(draft, names)),
    tags: buildTags(draft.participants, terms, eventType, draft.claims),
    quotes: buildQuotes(texts),
    sourceMessageIds: [message.messageId],
    scope,
    criticality: claimCriticality(criticalityOf(first.text, scope), draft.claims, scope),
    temporal: {
      ...(mention ? { mentionedAt: message.occurredAt } : {}),
      ...(time?.resolved
        ? { happenedStart: time.resolved.happenedStart, happenedEnd: time.resolved.happenedEnd }
        : {}),
      ...(time ? { originalText: time.text } : {}),
      precision: time?.resolved?.precision ?? 'unknown',
      basis: time?.resolved?.basis ?? 'unknown',
      status,
      participants: draft.participants,
      eventType,
    },
    relations: relate(
      {
        text: first.text,
        keys: unique(terms.map((t) => t.key)),
        eventType,
        claims: draft.claims,
      },
      timeline,
    ),
    catalogHints: [],
  };
}

/** How much of the rest of its message an event's summary carries. */
const MESSAGE_CONTEXT_MAX = 800;
/** How many sentences on each side of the event that context is looked for in. */
const MESSAGE_CONTEXT_SCAN = 16;

/**
 * The message's other sentences that say something (a greeting or a name alone does not),
 * nearest to the event's first, within MESSAGE_CONTEXT_MAX and in their order: a short message
 * comes whole, a pasted page only around the event.
 */
function surroundingSentences(draft: Draft, names: ReadonlySet<string>): string[] {
  const own = new Set(draft.positions);
  const all = draft.messageSentences;
  const start = draft.positions[0] ?? 0;
  const taken: number[] = [];
  let room = MESSAGE_CONTEXT_MAX;
  // Sentences that say nothing cost no room, so the walk is bounded on its own: a pasted page
  // of them is not read once per event.
  const reach = Math.min(all.length, MESSAGE_CONTEXT_SCAN);
  for (let d = 1; room > 0 && d <= reach && (start - d >= 0 || start + d < all.length); d += 1) {
    for (const i of [start - d, start + d]) {
      const text = all[i];
      if (text === undefined || own.has(i)) continue;
      const size = codePointLength(text);
      if (size <= MESSAGE_CONTEXT_MAX && !saysSomething(text, names)) continue;
      if (size > room) {
        room = 0;
        break;
      }
      room -= size + 1;
      taken.push(i);
    }
  }
  return taken.sort((a, b) => a - b).map((i) => all[i] as string);
}

/**
 * Content beyond greetings and names: greetings are stop words (no terms), and a capitalised
 * word alone is someone addressed.
 */
function saysSomething(text: string, names: ReadonlySet<string>): boolean {
  const content = viewSentence(text).terms.filter((t) => !names.has(t.key));
  return content.length >= 2 || (content.length === 1 && !content[0]!.proper);
}

/** Where the time lies decides planned vs occurred; the grammar decides when there is none. */
function statusOf(
  tense: Tense,
  time: TimeExpression | undefined,
): ExtractedEvent['temporal']['status'] {
  if (tense === 'cancelled') return 'cancelled';
  const relation = time?.resolved?.relation;
  if (relation === 'future') return 'planned';
  // "on vacation until December 8", said on November 30: a span under way.
  if (relation === 'current' && time?.resolved?.precision === 'range') return 'ongoing';
  if (relation === 'past') return 'occurred';
  if (tense === 'future') return 'planned';
  if (tense === 'ongoing') return 'ongoing';
  return tense === 'past' ? 'occurred' : 'unknown';
}

/** "We finish the prototype next week" is a plan, never evidence of completion (MM-EVT-4). */
function settleType(type: EventType, status: ExtractedEvent['temporal']['status']): EventType {
  if (status === 'planned' && (type === 'task_completed' || type === 'incident')) return 'plan';
  if (status === 'cancelled' && (type === 'other' || type === 'plan')) return 'cancellation';
  return type;
}

/** MM-EVT-16: identical cards (said twice, word for word) become one, uniting sources and tags. */
function mergeIdentical(events: ExtractedEvent[]): ExtractedEvent[] {
  const byKey = new Map<string, ExtractedEvent>();
  for (const event of events) {
    const key = JSON.stringify([
      event.title,
      event.summary,
      event.scope,
      event.criticality,
      event.temporal,
    ]);
    const kept = byKey.get(key);
    if (!kept) {
      byKey.set(key, event);
      continue;
    }
    kept.sourceMessageIds = unique([...kept.sourceMessageIds, ...event.sourceMessageIds]);
    kept.tags = unique([...kept.tags, ...event.tags]).slice(0, 12);
  }
  return [...byKey.values()];
}

function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}
