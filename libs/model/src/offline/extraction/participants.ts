import type { SummaryMessage } from '../../model-port.ts';
import { ENGLISH_STOP_WORDS } from '../stop-words.ts';
import type { TermHit } from '../terms.ts';
import { hasHan } from '../words.ts';

/** Labels hosts give the answering model; its "I" is an agent, never a participant. */
const GENERIC_ASSISTANT =
  /^(?:assistant|ai|bot|agent|model|system|gpt|chatgpt|claude|copilot|helper|助手|助理|ai助手|智能助手|机器人)$/iu;

export function isGenericAssistant(message: SummaryMessage): boolean {
  const name = message.name?.trim() ?? '';
  return message.role === 'assistant' && (name === '' || GENERIC_ASSISTANT.test(name));
}

/** The person behind a message, if it names one (tool and generic assistant messages do not). */
export function personOf(message: SummaryMessage): string | undefined {
  if (message.role === 'tool' || message.role === 'system' || isGenericAssistant(message)) {
    return undefined;
  }
  const name = message.name?.trim();
  return name ? name : undefined;
}

/**
 * A capitalised word counts as a person only next to words that take people: "with Jon",
 * "my sister Ana", "Jon and I", "Jon said". A bare capital is as often a place, product or
 * brand ("moved to Boston", "switched to Docker"), and a wrong participant is worse than none.
 */
const BEFORE_NAME = [
  'with',
  'met',
  'meet',
  'meeting',
  'told',
  'tell',
  'asked',
  'ask',
  'called',
  'texted',
  'hugged',
  'married',
  'dating',
  'named',
  'friend',
  'friends',
  'buddy',
  'sister',
  'brother',
  'mom',
  'mum',
  'mother',
  'dad',
  'father',
  'wife',
  'husband',
  'partner',
  'son',
  'daughter',
  'boss',
  'colleague',
  'coworker',
  'teammate',
  'teacher',
  'mentor',
  'cousin',
  'aunt',
  'uncle',
  'grandma',
  'grandpa',
  'neighbor',
  'neighbour',
]
  .map((w) => `[${w.charAt(0)}${w.charAt(0).toUpperCase()}]${w.slice(1)}`)
  .join('|');
const NAME = String.raw`(\p{Lu}\p{Ll}+(?:\s\p{Lu}\p{Ll}+)?)`;
const PRE_CUE = new RegExp(String.raw`\b(?:${BEFORE_NAME})\s+${NAME}`, 'gu');
const POST_CUE = new RegExp(
  String.raw`${NAME}\s+(?:and I|and me|said|says|told|asked|suggested|recommended|helped|joined|invited)\b`,
  'gu',
);

const PRE_CUE_TEST = new RegExp(PRE_CUE.source, 'u');
const POST_CUE_TEST = new RegExp(POST_CUE.source, 'u');

/** Whether a sentence has a word that usually stands next to a person's name. */
export function hasPersonCue(sentence: string): boolean {
  return PRE_CUE_TEST.test(sentence) || POST_CUE_TEST.test(sentence);
}

export function findParticipants(
  sentence: string,
  speaker: string | undefined,
  terms: readonly TermHit[],
  knownNames: readonly string[],
  /** Names the NLP pipeline found (people entities, a resolved pronoun). */
  named: readonly string[] = [],
): string[] {
  const out: string[] = [];
  const add = (name: string) => {
    const clean = name.trim();
    if (clean === '' || out.some((n) => n.toLowerCase() === clean.toLowerCase())) return;
    out.push(clean);
  };
  if (speaker) add(speaker);
  const lower = sentence.toLowerCase();
  for (const name of knownNames) {
    const needle = name.toLowerCase();
    for (let at = lower.indexOf(needle); at >= 0; at = lower.indexOf(needle, at + 1)) {
      if (isWholeWord(lower, at, needle) && !isVocative(sentence, at, needle.length)) {
        add(name);
        break;
      }
    }
  }
  for (const pattern of [PRE_CUE, POST_CUE]) {
    for (const match of sentence.matchAll(pattern)) {
      const words = (match[1] ?? '').split(/\s/u);
      // "with Jon Smith" keeps both words; "with Jon Today" keeps only the name.
      const kept = words.filter((w) => !ENGLISH_STOP_WORDS.has(w.toLowerCase()));
      if (kept.length === words.length || kept.length === 1) add(kept.join(' '));
    }
  }
  for (const name of named) {
    const at = sentence.indexOf(name);
    if (at < 0 || !isVocative(sentence, at, name.length)) add(name);
  }
  // Chinese names come from the term extractor's surname rule (李|明 → 李明).
  for (const term of terms) if (term.proper && hasHan(term.surface)) add(term.surface);
  return out.slice(0, 8);
}

/**
 * "Thanks, Caroline!", "Hey Mel, …", "…, Jon.": a name the speaker addresses is who they talk
 * to, not someone the event is about.
 */
function isVocative(sentence: string, at: number, length: number): boolean {
  const before = sentence.slice(0, at);
  const after = sentence.slice(at + length);
  const opens =
    /^\s*(?:(?:hey|hi|hello|thanks|thank you|wow|oh|aw+|yes|yeah|yep|no|ok(?:ay)?|sure|congrats|congratulations|dear|good (?:morning|evening|night)|great|cool|nice|sorry|haha)[\s,!]*)?$/iu.test(
      before,
    );
  const closes = /^\s*[,!?.…:;)]|^\s*$/u.test(after);
  const afterComma = /[,]\s*$/u.test(before) && /^\s*[!?.…]*\s*$/u.test(after);
  return (opens && closes) || afterComma;
}

/** Latin names must stand alone ("Mel" is not in "Melanie"); Han text has no word breaks. */
function isWholeWord(text: string, at: number, name: string): boolean {
  if (hasHan(name)) return true;
  const boundary = (ch: string) => !/[\p{L}\p{N}]/u.test(ch) || hasHan(ch);
  return boundary(text[at - 1] ?? ' ') && boundary(text[at + name.length] ?? ' ');
}
