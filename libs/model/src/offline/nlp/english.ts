import nlp from './compromise.ts';
import { isKnownTool, isTechShaped } from '../graph/names.ts';
import type { Clause, EntityType, Phrase, SentenceAnalysis, Tense, Token } from './analysis.ts';

/**
 * The English pipeline: compromise (ADR 0037) tags each word (part of speech, person / place /
 * organization from its lexicon and rules, dates), chunks the sentence into noun, verb and
 * pivot groups and gives verbs their root. Everything below — entities, noun chunks, simple
 * subject–verb–object clauses, tense, negation — is read from those tags here, so the rest of
 * the extractor never sees the library. compromise is deterministic and reads no clock.
 */

type RawTerm = {
  text: string;
  post?: string;
  normal: string;
  root?: string;
  chunk?: string;
  implicit?: string;
  tags?: Set<string>;
};

export function analyseEnglish(text: string): SentenceAnalysis {
  // Chunks are among compromise's default steps (its `hooks`): only roots are asked for.
  const doc = nlp(text);
  doc.compute('root');
  const terms = (doc.docs as unknown as RawTerm[][]).flat();
  const tokens = repairLeave(terms.map(toToken));
  const entities = entitiesOf(tokens);
  const nounChunks = chunksOf(tokens, 'noun').map((c) => phraseOf(c, entities));
  const clauses = clausesOf(tokens, entities);
  return {
    text,
    language: 'en',
    tokens,
    entities,
    nounChunks,
    clauses,
    tense: clauses[0]?.tense ?? sentenceTense(tokens),
    negated: tokens.some((t) => t.tags.has('Negative')),
  };
}

function toToken(term: RawTerm): Token {
  const tags = term.tags ?? new Set<string>();
  const word = term.text !== '' ? term.text : (term.implicit ?? '');
  const normal = (term.implicit ?? term.normal).toLowerCase();
  return {
    text: word,
    normal,
    root: (term.root ?? normal).toLowerCase(),
    pos: posOf(tags, word),
    chunk: chunkOf(term.chunk),
    tags,
    after: (term.post ?? '').trim(),
  };
}

/** "on parental leave": compromise reads this "leave" as a verb; after "on" it is a noun. */
function repairLeave(tokens: Token[]): Token[] {
  return tokens.map((t, i) => {
    if (t.normal !== 'leave') return t;
    const back = tokens.slice(Math.max(0, i - 2), i).map((x) => x.normal);
    if (!back.includes('on')) return t;
    return { ...t, pos: 'NOUN', chunk: 'noun' };
  });
}

function chunkOf(raw: string | undefined): Token['chunk'] {
  if (raw === 'Noun') return 'noun';
  if (raw === 'Verb') return 'verb';
  if (raw === 'Adjective') return 'adjective';
  return 'pivot';
}

function posOf(tags: ReadonlySet<string>, text: string): Token['pos'] {
  if (tags.has('Pronoun')) return 'PRON';
  if (tags.has('Auxiliary') || tags.has('Modal') || tags.has('Copula')) return 'AUX';
  if (tags.has('Verb')) return 'VERB';
  if (tags.has('ProperNoun') || tags.has('Person') || tags.has('Place')) return 'PROPN';
  if (tags.has('Value') || tags.has('Cardinal')) return 'NUM';
  if (tags.has('Noun')) return 'NOUN';
  if (tags.has('Adjective')) return 'ADJ';
  if (tags.has('Adverb')) return 'ADV';
  if (tags.has('Preposition')) return 'ADP';
  if (tags.has('Determiner')) return 'DET';
  if (tags.has('Conjunction')) return 'CONJ';
  return /^[\p{P}\p{S}]+$/u.test(text) ? 'PUNCT' : 'OTHER';
}

const NOT_A_NAME = /^(?:i|i'm|the|a|an|my|our|we|you|he|she|they|it|this|that|project|team)$/iu;

function entityTypeOf(t: Token, next?: Token, previous?: Token): EntityType | null {
  if (t.tags.has('Date') || t.tags.has('Month') || t.tags.has('WeekDay')) return 'date';
  if (t.tags.has('Person')) return 'person';
  if (t.tags.has('Place')) return 'place';
  if (t.tags.has('Organization')) return 'organization';
  const word = t.text.replace(/[.,;:!?]+$/u, '');
  if (isKnownTool(word) || (t.pos !== 'PRON' && /[A-Za-z]/u.test(word) && isTechShaped(word))) {
    return 'tool';
  }
  // A capitalised name the lexicon does not know, right before a verb, is someone doing
  // something ("Priya covers infra"); after "project" it is the project's name.
  if (t.pos === 'PROPN' && next?.chunk === 'verb' && previous?.normal !== 'project') {
    return /^\p{Lu}\p{Ll}+$/u.test(word) ? 'person' : null;
  }
  return null;
}

/** Runs of tokens of one entity type; a capitalised proper noun next to a typed one joins it. */
function entitiesOf(tokens: readonly Token[]): { text: string; type: EntityType; at: number }[] {
  const out: { text: string; type: EntityType; at: number }[] = [];
  let i = 0;
  while (i < tokens.length) {
    const first = tokens[i] as Token;
    const type = entityTypeOf(first, tokens[i + 1], tokens[i - 1]);
    if (type === null || NOT_A_NAME.test(first.text)) {
      i += 1;
      continue;
    }
    let j = i + 1;
    while (j < tokens.length) {
      const next = tokens[j] as Token;
      const nextType = entityTypeOf(next, tokens[j + 1], tokens[j - 1]);
      const joins =
        nextType === type ||
        (type !== 'date' && type !== 'tool' && next.pos === 'PROPN' && nextType === null);
      if (!joins || /[,;:!?]/u.test((tokens[j - 1] as Token).after)) break;
      j += 1;
    }
    const text = tokens
      .slice(i, j)
      .map((t) => t.text)
      .join(' ')
      .replace(/[.,;:!?'"”’)]+$/u, '');
    if (text !== '') out.push({ text, type, at: i });
    i = j;
  }
  return out;
}

function chunksOf(tokens: readonly Token[], kind: Token['chunk']): Token[][] {
  const out: Token[][] = [];
  let run: Token[] = [];
  for (const t of tokens) {
    if (t.chunk === kind && !(kind === 'noun' && t.pos === 'ADP' && run.length === 0)) {
      run.push(t);
      if (/[,;:!?]/u.test(t.after)) {
        out.push(run);
        run = [];
      }
    } else if (run.length > 0) {
      out.push(run);
      run = [];
    }
  }
  if (run.length > 0) out.push(run);
  return out;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');
}

const DETERMINER = /^(?:the|a|an|this|that|these|those|some|any)\s+/iu;

function phraseOf(
  run: readonly Token[],
  entities: readonly { text: string; type: EntityType }[],
): Phrase {
  const text = run
    .map((t) => t.text)
    .join(' ')
    .replace(/[.,;:!?"”’)]+$/u, '')
    .trim();
  const content = run.filter((t) => t.pos !== 'ADP' && t.pos !== 'DET');
  const head = content.find((t) => t.pos === 'PROPN') ?? content.at(-1) ?? run.at(-1);
  const entity =
    entities.find((e) => e.text === text) ??
    entities.find((e) => new RegExp(String.raw`(?:^|\s)${escape(e.text)}(?:$|\s)`, 'u').test(text));
  const pronoun = run.length === 1 && run[0]?.pos === 'PRON';
  return {
    text,
    bare: text.replace(DETERMINER, ''),
    head: (head?.normal ?? '').replace(/[.,;:!?'"]+$/u, ''),
    ...(entity ? { entity: { text: entity.text, type: entity.type } } : {}),
    pronoun,
  };
}

const HEDGE_VERBS =
  /\b(?:will|would|could|should|might|may|must|shall|going|gonna|used to|want|wants|wanted|plan|plans|planning|hope|hoping|try|trying|consider|considering|intend)\b/iu;
const CONDITION = /^(?:if|whether|unless|maybe|perhaps)$/iu;

const JOIN = /^(?:and|but|so|while|because|although|whereas)$/iu;

/** Words that end a clause's subject search: a new clause starts after them. */
const CLAUSE_PIVOT = /^(?:so|but|and|because|while|although|since|when|if|or|though|whereas)$/iu;

function clausesOf(
  tokens: readonly Token[],
  entities: readonly { text: string; type: EntityType }[],
): Clause[] {
  const clauses: Clause[] = [];
  let i = 0;
  let clauseStart = 0;
  while (i < tokens.length) {
    const t = tokens[i] as Token;
    if (t.chunk === 'pivot' && CLAUSE_PIVOT.test(t.normal)) clauseStart = i + 1;
    if (/[;:]/u.test(t.after)) clauseStart = i + 1;
    if (t.chunk !== 'verb') {
      i += 1;
      continue;
    }
    let j = i;
    while (j < tokens.length && (tokens[j] as Token).chunk === 'verb') j += 1;
    const group = tokens.slice(i, j);
    const clause = clauseAt(tokens, group, clauseStart, i, j, entities);
    if (clause) clauses.push(clause);
    i = j;
    clauseStart = j;
  }
  return clauses;
}

function clauseAt(
  tokens: readonly Token[],
  group: readonly Token[],
  from: number,
  verbAt: number,
  after: number,
  entities: readonly { text: string; type: EntityType }[],
): Clause | null {
  // The first full verb is the main one ("love hiking", "went camping"); the verbs after it are
  // what it is about. Without one, a copula or the last auxiliary ("is", "used to be").
  const mainAt = group.findIndex((t) => t.pos === 'VERB');
  const main =
    group[mainAt] ?? [...group].reverse().find((t) => t.tags.has('Copula')) ?? group.at(-1);
  const trailing = mainAt >= 0 ? group.slice(mainAt + 1).filter((t) => t.pos === 'VERB') : [];
  if (!main || main.text === 'to') return null;
  // The subject: the last noun chunk between the clause start and the verb.
  const before = chunksOf(tokens.slice(from, verbAt), 'noun');
  const subjectRun = before.at(-1);
  const rest = tokens.slice(after);
  // The object (and its preposition, if any) up to the next verb group or clause pivot.
  const stop = rest.findIndex(
    (t) => t.chunk === 'verb' || (t.chunk === 'pivot' && CLAUSE_PIVOT.test(t.normal)),
  );
  const tail = stop < 0 ? rest : rest.slice(0, stop);
  const complements: { prep: string; phrase: Phrase }[] = [];
  let object: Phrase | undefined;
  let prep = '';
  let run: Token[] = [];
  const flush = () => {
    if (run.length === 0) return;
    const phrase = phraseOf(run, entities);
    if (prep === '' && !object) object = phrase;
    else complements.push({ prep, phrase });
    run = [];
    prep = '';
  };
  for (const [k, t] of tail.entries()) {
    // "Tom handles infra and Priya leads the app": the object ends at a conjunction when
    // another clause follows.
    if (JOIN.test(t.normal) && rest.slice(k + 1).some((x) => x.chunk === 'verb')) break;
    if (
      t.pos === 'ADP' ||
      (t.chunk === 'pivot' && /^(?:to|for|in|on|at|from|with|until|by)$/iu.test(t.normal))
    ) {
      flush();
      prep = t.normal;
      continue;
    }
    if (t.chunk === 'noun' || t.chunk === 'adjective') run.push(t);
    else flush();
    if (/[,;:!?]/u.test(t.after)) flush();
  }
  flush();
  if (!object && trailing.length > 0) object = phraseOf(trailing, entities);
  const copula = main.tags.has('Copula') || main.root === 'be' || main.normal === 'am';
  return {
    ...(subjectRun ? { subject: phraseOf(subjectRun, entities) } : {}),
    verb: copula ? 'be' : main.root,
    verbText: group.map((t) => t.text).join(' '),
    negated: group.some((t) => t.tags.has('Negative')),
    tense: groupTense(group),
    hedged:
      HEDGE_VERBS.test(group.map((t) => t.normal).join(' ')) ||
      tokens.slice(Math.max(0, from - 1), verbAt).some((t) => CONDITION.test(t.normal)),
    ...(object ? { object } : {}),
    complements,
  };
}

function groupTense(group: readonly Token[]): Tense {
  const words = group.map((t) => t.normal);
  if (words.includes('will') || words.includes('shall') || words.join(' ').includes('going to')) {
    return 'future';
  }
  if (words[0] === 'used' && words[1] === 'to') return 'past';
  if (group.some((t) => t.tags.has('Gerund')) && group.some((t) => t.tags.has('Copula'))) {
    return 'ongoing';
  }
  if (group.some((t) => t.tags.has('PastTense') || t.tags.has('Perfect'))) return 'past';
  if (group.some((t) => t.tags.has('PresentTense') || t.tags.has('Copula'))) return 'present';
  return 'none';
}

function sentenceTense(tokens: readonly Token[]): Tense {
  return groupTense(tokens.filter((t) => t.chunk === 'verb'));
}
