import type { EventType } from '../../extraction.schema.ts';
import { codePointLength, collapseWhitespace, cutAtBoundary, cutCodePoints } from '../../text.ts';
import { claimWords, type Claim } from '../nlp/claims.ts';
import type { TermHit } from '../terms.ts';
import { hasHan } from '../words.ts';

/**
 * The readable parts of an event, all built from the source sentences: the title is a cleaned
 * sentence, the summary and quotes are the sentences themselves (MM-EVT-14).
 */
export const EVENT_TITLE_MAX = 160;
export const EVENT_SUMMARY_MAX = 2000;
const QUOTE_MAX = 1000;
const TAGS_MAX = 12;
const TAG_MAX = 40;

const LEADING_FILLER =
  /^(?:(?:ok(?:ay)?|so|well|hi|hey|hello|yeah|yes|yep|wow|oh|ah|um+|uh+|hmm+|anyway|btw|by the way|guess what|you know what|honestly|actually|also|and|but|plus|great|cool|nice|好的|好吧|好|嗯+|那么|哦|啊|对|是的|其实|另外)(?=[\s,，.。!！:：、~～-])(?:\s+\p{Lu}\p{Ll}+)?[\s,，.。!！:：、~～-]+)+/iu;
const LEADING_PRONOUN = /^(?:he|she|they|他们|她们|他|她)(?=\b|\s|[^\p{L}])/iu;
const TRAILING_PUNCTUATION = /[\s.。!！?？;；,，:：~～…-]+$/u;
const LEADING_JOINERS = /^[\s,，;；:：-]+/u;

/** A speaker's "I …" reads as "<Name>: …"; the verb is adjusted so the line still reads. */
const FIRST_PERSON_SUBJECT: readonly (readonly [RegExp, string])[] = [
  [/^(?:i'm|i am)\s+/iu, 'is '],
  [/^(?:i've|i have)\s+/iu, 'has '],
  [/^i'd\s+/iu, 'would '],
  [/^(?:i'll|i will)\s+/iu, 'will '],
  [/^i\s+/iu, ''],
  [/^我(?!们)/u, ''],
];

export function buildTitle(
  sentence: string,
  speaker: string | undefined,
  timeText: string | undefined,
  antecedent?: string,
): string {
  const flat = collapseWhitespace(sentence.replace(/[’‘]/gu, "'"));
  let body = flat.replace(LEADING_FILLER, '') || flat;
  body = withoutEdgeTime(body, timeText);
  // "She covers infra" reads on its own as "Priya covers infra" (resolved within the block).
  if (antecedent) body = body.replace(LEADING_PRONOUN, antecedent);
  if (speaker) {
    for (const [pattern, replacement] of FIRST_PERSON_SUBJECT) {
      if (pattern.test(body)) {
        body = body.replace(pattern, replacement);
        break;
      }
    }
  }
  body = body.replace(TRAILING_PUNCTUATION, '') || flat;
  const prefix = speaker ? `${cutCodePoints(speaker, 40)}: ` : '';
  const cut = cutAtBoundary(body, EVENT_TITLE_MAX - codePointLength(prefix));
  return speaker ? prefix + cut : cut.charAt(0).toUpperCase() + cut.slice(1);
}

/** A time at the very start or end is in `temporal`; in the middle it stays, or grammar breaks. */
function withoutEdgeTime(body: string, timeText: string | undefined): string {
  if (!timeText) return body;
  const lower = body.toLowerCase();
  const time = timeText.toLowerCase();
  let out = body;
  if (lower.startsWith(time)) out = body.slice(timeText.length).replace(LEADING_JOINERS, '');
  else {
    const trimmed = body.replace(TRAILING_PUNCTUATION, '');
    if (trimmed.toLowerCase().endsWith(time)) {
      out = trimmed.slice(0, trimmed.length - timeText.length).replace(/[\s,，]+$/u, '');
      out = out
        .replace(/\s+(?:on|in|at|during|to|until|till|by|for)$/iu, '')
        .replace(/(?:直到|到)$/u, '');
    }
  }
  return out.trim() === '' ? body : out;
}

/**
 * "<Speaker>: <the sentences>", then as context the rest of the same message and the message it
 * replies to: a reply ("A sunset with a lake.") says little without what it answers ("What did
 * you paint?"), and the sentences around an event's own are often what a later question about
 * it asks for. The event's sentences come first, so a cut drops context before them. (The reply
 * a message got was tried as well and made event search worse on LoCoMo dev.)
 */
export function buildSummary(
  label: string,
  sentences: readonly string[],
  replyTo?: { speaker: string; text: string },
  restOfMessage: readonly string[] = [],
): string {
  const said = `${label}: ${collapseWhitespace(sentences.join(' '))}`;
  const rest =
    restOfMessage.length > 0
      ? ` (same message: ${collapseWhitespace(restOfMessage.join(' '))})`
      : '';
  const context = replyTo
    ? ` (in reply to ${replyTo.speaker}: ${collapseWhitespace(replyTo.text)})`
    : '';
  return cutAtBoundary(said + rest + context, EVENT_SUMMARY_MAX);
}

/** Quotes are exact source text; an over-long one keeps its head (still a verbatim prefix). */
export function buildQuotes(sentences: readonly string[]): string[] {
  return sentences.slice(0, 12).map((s) => cutCodePoints(s, QUOTE_MAX));
}

/** Past forms and cue verbs say what kind of event it is, which `eventType` already does. */
const NOT_A_TAG = /^(?:\p{L}+ed|went|gave|got|made|took|saw|met|ran|won|did|had|was|were)$|了$/u;

export function buildTags(
  participants: readonly string[],
  terms: readonly TermHit[],
  eventType: EventType,
  claims: readonly Claim[] = [],
): string[] {
  const tags: string[] = [];
  const add = (raw: string) => {
    const tag = cutCodePoints(raw.trim(), TAG_MAX);
    if (tag === '' || tags.length >= TAGS_MAX - 1) return;
    const lower = tag.toLowerCase();
    const clash = tags.some((t) => {
      const other = t.toLowerCase();
      return (
        other === lower ||
        (hasHan(tag) && hasHan(t) && (other.includes(lower) || lower.includes(other)))
      );
    });
    if (!clash) tags.push(tag);
  };
  participants.forEach(add);
  // What the sentence states: the words a question about it uses ("live", "diet") and the value.
  for (const claim of claims) {
    for (const word of claimWords(claim)) add(word);
    add(claim.value);
  }
  for (const term of terms) if (!NOT_A_TAG.test(term.surface)) add(term.surface);
  if (eventType !== 'other' && !tags.includes(eventType)) tags.push(eventType);
  return tags;
}
