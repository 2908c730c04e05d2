import { BOILERPLATE } from '../stop-words.ts';
import { extractTerms, type TermHit } from '../terms.ts';
import { countHan, hasHan, segmentWords } from '../words.ts';
import {
  FIRST_PERSON,
  STRONG_TYPES,
  eventTypeOf,
  isIdentity,
  isLastingGuidance,
  isPreference,
  isSafety,
  isSessionRequest,
} from './cues.ts';
import { hasPersonCue } from './participants.ts';

/** One sentence of a message, analysed only once a cheap test says it might be an event. */
export interface SentenceView {
  text: string;
  terms: TermHit[];
  question: boolean;
  hanChars: number;
}

const QUESTION = /[?？]["'”’)）]*$/u;

export function isQuestion(text: string): boolean {
  return QUESTION.test(text);
}

export function viewSentence(text: string): SentenceView {
  return {
    text,
    terms: extractTerms(segmentWords(text)),
    question: isQuestion(text),
    hanChars: countHan(text),
  };
}

/**
 * Word segmentation is the expensive step, and most of a long answer (explanations, lists,
 * pasted output) can never be an event. This regex-only test drops such sentences first; it
 * may let through sentences that fail later, but never drops one the full test would keep.
 */
export function mayBeEvent(
  text: string,
  agent: boolean,
  knownNames: readonly string[],
  person = false,
): boolean {
  if (BOILERPLATE.test(text)) return false;
  if (person) return !isQuestion(text);
  const type = eventTypeOf(text);
  if (agent) return STRONG_TYPES.has(type);
  const plain = text.replace(/[’‘]/gu, "'");
  if (hasHan(text) || type !== 'other' || FIRST_PERSON.test(plain) || hasPersonCue(text))
    return true;
  const personal = isPreference(plain) || isIdentity(plain) || isSafety(plain);
  if (personal || isSessionRequest(plain) || isLastingGuidance(plain)) return true;
  // A name inside the sentence ("…, so Priya covers infra") or a verb the claim table reads.
  if (INNER_NAME.test(text) || CLAIM_HINT.test(plain)) return true;
  const lower = text.toLowerCase();
  return knownNames.some((n) => lower.includes(n.toLowerCase()));
}

const INNER_NAME =
  /^\p{Lu}\p{Ll}+\s+(?:is|was|will|has|had|covers|handles|owns|leads|runs|moved|joined|lives|works)\b|\s\p{Lu}\p{Ll}+\s+(?:is|was|will|has|covers|handles|owns|leads|runs|moved|joined|lives|works|takes)\b/u;
const CLAIM_HINT =
  /\b(?:cover(?:s|ing|ed)?|handl(?:e|es|ed|ing)|in charge|responsible for|vegetarian|vegan|pescatarian|deadline|due|postponed|rescheduled|on (?:vacation|leave|holiday)|lives? in|based in|works? (?:at|for|as)|joined|tech lead|manager)\b/iu;
