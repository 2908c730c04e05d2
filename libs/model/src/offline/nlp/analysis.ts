import { hasHan } from '../words.ts';
import { analyseChinese } from './chinese.ts';
import { analyseEnglish } from './english.ts';

/**
 * What the NLP pipeline says about one sentence, in either language: tokens with a part of
 * speech, typed entities, noun chunks, and simple subject–verb–object clauses with their tense
 * and negation. Extraction (events, relations) and the graph proposer read only this shape.
 */
export type EntityType = 'person' | 'place' | 'organization' | 'tool' | 'date';
export type Tense = 'past' | 'present' | 'ongoing' | 'future' | 'none';

export interface Token {
  text: string;
  normal: string;
  /** Infinitive of a verb, singular of a noun (English); the word itself in Chinese. */
  root: string;
  pos:
    | 'NOUN'
    | 'PROPN'
    | 'PRON'
    | 'VERB'
    | 'AUX'
    | 'ADJ'
    | 'ADV'
    | 'ADP'
    | 'DET'
    | 'CONJ'
    | 'NUM'
    | 'PUNCT'
    | 'OTHER';
  chunk: 'noun' | 'verb' | 'adjective' | 'pivot';
  tags: ReadonlySet<string>;
  /** Punctuation written right after the word ("," ":"): where clauses and phrases end. */
  after: string;
}

export interface Phrase {
  text: string;
  /** Without a leading article or demonstrative ("the beta deadline" → "beta deadline"). */
  bare: string;
  /** The head word, lower case (the proper noun if there is one, else the last word). */
  head: string;
  entity?: { text: string; type: EntityType };
  pronoun: boolean;
}

export interface Clause {
  subject?: Phrase;
  /** Root of the main verb; `be` for a copula. */
  verb: string;
  /** The verb group as written ("don't eat", "will move"). */
  verbText: string;
  negated: boolean;
  tense: Tense;
  /** A plan, wish, condition, possibility or past habit ("will", "if", "used to"): no fact now. */
  hedged: boolean;
  object?: Phrase;
  /** Prepositional phrases after the verb, in order ("to" Lisbon, "until" December 8). */
  complements: { prep: string; phrase: Phrase }[];
}

export interface SentenceAnalysis {
  text: string;
  language: 'en' | 'zh';
  tokens: Token[];
  entities: { text: string; type: EntityType; at: number }[];
  nounChunks: Phrase[];
  clauses: Clause[];
  tense: Tense;
  negated: boolean;
}

/**
 * Sentences longer than this are not parsed: a pasted log or a wall of text is no statement,
 * and the tagger's cost grows with the length.
 */
export const ANALYSIS_MAX_CHARS = 600;

const cache = new Map<string, SentenceAnalysis>();
const CACHE_MAX = 2_000;

/** One sentence through the pipeline of its language (Han text → Chinese). Memoised. */
export function analyseSentence(text: string): SentenceAnalysis {
  const key = text.length > ANALYSIS_MAX_CHARS ? text.slice(0, ANALYSIS_MAX_CHARS) : text;
  const known = cache.get(key);
  if (known) return known;
  const analysis = hasHan(key) ? analyseChinese(key) : analyseEnglish(key);
  if (cache.size >= CACHE_MAX) cache.clear();
  cache.set(key, analysis);
  return analysis;
}
