import { isKnownTool } from '../graph/names.ts';
import { extractTerms } from '../terms.ts';
import { segmentWords } from '../words.ts';
import type { Clause, EntityType, Phrase, SentenceAnalysis, Tense, Token } from './analysis.ts';

/**
 * The simplified-Chinese pipeline. No registry package tags Chinese parts of speech offline
 * without native code or a 16 MB dictionary (ADR 0037), so words come from `Intl.Segmenter`
 * (ICU's dictionary), names from the surname rule of the term extractor (李|明 → 李明), and
 * clauses from a table of verbs: the subject is the words before the verb in its clause, the
 * object the words after it up to a particle or punctuation.
 */

/** Verbs the clause reader knows, longest first, each with the root the claim table uses. */
const VERBS: readonly (readonly [string, string])[] = (
  [
    ['负责', 'handle'],
    ['接手', 'take over'],
    ['接管', 'take over'],
    ['主管', 'lead'],
    ['代替', 'cover for'],
    ['顶替', 'cover for'],
    ['替', 'cover for'],
    ['住在', 'live in'],
    ['搬到了', 'move to'],
    ['搬到', 'move to'],
    ['搬去', 'move to'],
    ['定居在', 'live in'],
    ['定居', 'live in'],
    ['改用', 'switch to'],
    ['换成', 'switch to'],
    ['迁移到', 'switch to'],
    ['使用', 'use'],
    ['采用', 'use'],
    ['担任', 'become'],
    ['成为', 'become'],
    ['升职为', 'become'],
    ['加入了', 'join'],
    ['加入', 'join'],
    ['喜欢', 'like'],
    ['爱吃', 'like'],
    ['讨厌', 'hate'],
    ['吃素', 'be vegetarian'],
    ['休假', 'be on vacation'],
    ['请假', 'be on leave'],
    ['出差', 'be on a trip'],
    ['推迟到', 'move to'],
    ['延期到', 'move to'],
    ['提前到', 'move to'],
    ['改到', 'move to'],
    ['定在', 'set for'],
    ['是', 'be'],
  ] as const
)
  .slice()
  .sort((a, b) => b[0].length - a[0].length);

const ZH_DATE =
  /(?:\d{4}年)?\d{1,2}月(?:\d{1,2}[日号])?|[上下这本]个?(?:周|星期)[一二三四五六日天]|明天|后天|昨天|下个?月|下周|明年|去年/gu;

const VERB_PATTERN = new RegExp(VERBS.map(([v]) => v).join('|'), 'gu');
const CLAUSE_BREAK = /[，,。！？!?；;：:、]/u;
const NEGATION = /(?:不再|不|没有|没|别)$/u;
const ADVERBS =
  /(?:现在|目前|已经|一直|正在|也|都|就|还|又|终于|开始|从今天起|从现在起|今后|以后|将|会|要|打算|准备|计划|刚刚|刚)+$/u;
const OBJECT_END = /(?:了|的|吧|呢|啊|呀|哦|啦|嘛)$/u;

export function analyseChinese(text: string): SentenceAnalysis {
  const segments = segmentWords(text);
  const tokens: Token[] = segments
    .filter((s) => s.wordLike)
    .map((s) => ({
      text: s.text,
      normal: s.text.toLowerCase(),
      root: s.text.toLowerCase(),
      pos: 'OTHER',
      chunk: 'pivot',
      tags: new Set<string>(),
      after: '',
    }));
  const entities = entitiesOf(text, segments);
  const clauses = clausesOf(text, entities);
  return {
    text,
    language: 'zh',
    tokens,
    entities,
    nounChunks: [],
    clauses,
    tense: clauses[0]?.tense ?? tenseOf(text),
    negated: clauses.some((c) => c.negated),
  };
}

function entitiesOf(
  text: string,
  segments: ReturnType<typeof segmentWords>,
): { text: string; type: EntityType; at: number }[] {
  const out: { text: string; type: EntityType; at: number }[] = [];
  for (const term of extractTerms(segments)) {
    if (term.proper && /\p{Script=Han}/u.test(term.surface)) {
      out.push({ text: term.surface, type: 'person', at: text.indexOf(term.surface) });
    }
  }
  for (const m of text.matchAll(/([A-Za-z][A-Za-z0-9.+#-]*)/gu)) {
    const word = m[1] ?? '';
    if (isKnownTool(word)) out.push({ text: word, type: 'tool', at: m.index });
    else if (/^\p{Lu}\p{Ll}+$/u.test(word)) out.push({ text: word, type: 'person', at: m.index });
  }
  for (const m of text.matchAll(ZH_DATE)) out.push({ text: m[0], type: 'date', at: m.index });
  for (const m of text.matchAll(/([\p{Script=Han}A-Za-z0-9]{1,8})公司/gu)) {
    out.push({ text: `${m[1] ?? ''}公司`, type: 'organization', at: m.index });
  }
  return out.sort((a, b) => a.at - b.at);
}

function phrase(raw: string, entities: readonly { text: string; type: EntityType }[]): Phrase {
  const text = raw.trim();
  const entity =
    entities.find((e) => e.text === text) ??
    entities.find((e) => text.endsWith(e.text)) ??
    entities.find((e) => e.type === 'person' && text.startsWith(e.text));
  const pronoun = /^(?:我|你|他|她|它|我们|你们|他们|她们|咱们)$/u.test(text);
  return {
    text,
    bare: text.replace(/^(?:这个|那个|这|那)/u, ''),
    head: entity?.text ?? text,
    ...(entity ? { entity: { text: entity.text, type: entity.type } } : {}),
    pronoun,
  };
}

function clausesOf(
  text: string,
  entities: readonly { text: string; type: EntityType }[],
): Clause[] {
  const clauses: Clause[] = [];
  const matches = [...text.matchAll(VERB_PATTERN)];
  matches.forEach((m, i) => {
    const verbText = m[0];
    const root = VERBS.find(([v]) => v === verbText)?.[1] ?? verbText;
    const start = lastBreak(text, m.index);
    const previous = matches[i - 1];
    // Serial verbs share a subject: Priya代替Tom负责基础设施 → Priya handles 基础设施.
    const serial = previous !== undefined && previous.index >= start;
    let lead = text.slice(serial ? previous.index + previous[0].length : start, m.index);
    const negated = NEGATION.test(lead);
    const hedged = HEDGE.test(text.slice(start, m.index));
    lead = lead.replace(NEGATION, '');
    for (let before = ''; before !== lead;) {
      before = lead;
      lead = lead.replace(ADVERBS, '').replace(NEGATION, '');
    }
    const afterAt = m.index + verbText.length;
    const breakAt = text.slice(afterAt).search(CLAUSE_BREAK);
    const next = matches[i + 1];
    let end = breakAt < 0 ? text.length : afterAt + breakAt;
    if (next && next.index < end) end = next.index;
    const objectText = text.slice(afterAt, end).replace(OBJECT_END, '').trim();
    const [verb, complementPrep] = splitRoot(root);
    const objectPhrase = objectText === '' ? undefined : phrase(objectText, entities);
    const subject = serial
      ? clauses.at(-1)?.subject
      : lead.trim() !== ''
        ? phrase(lead, entities)
        : undefined;
    clauses.push({
      ...(subject ? { subject } : {}),
      verb,
      verbText,
      negated,
      hedged,
      tense: tenseOf(text.slice(start, end)),
      ...(objectPhrase && complementPrep === '' ? { object: objectPhrase } : {}),
      complements:
        objectPhrase && complementPrep !== ''
          ? [{ prep: complementPrep, phrase: objectPhrase }]
          : [],
    });
  });
  return clauses;
}

/** "live in" → verb "live", preposition "in": the same shape the English clauses have. */
function splitRoot(root: string): [string, string] {
  const m = /^(live|move|switch|cover|set) (in|to|for)$/u.exec(root);
  return m ? [m[1] ?? root, m[2] ?? ''] : [root, ''];
}

function lastBreak(text: string, before: number): number {
  for (let i = before - 1; i >= 0; i -= 1) {
    if (CLAUSE_BREAK.test(text[i] ?? '')) return i + 1;
  }
  return 0;
}

const HEDGE = /打算|计划|准备|如果|假如|也许|可能|想|将要|会不会|是否|要不要|以前|曾经/u;
const ZH_FUTURE = /将|会|要|打算|计划|准备|明天|下周|下个?月|明年|截止|之前|以前/u;
const ZH_PAST = /了|过|已经|昨天|上周|去年|上个月/u;
const ZH_ONGOING = /正在|还在|目前|现在/u;

function tenseOf(text: string): Tense {
  if (ZH_FUTURE.test(text)) return 'future';
  if (ZH_ONGOING.test(text)) return 'ongoing';
  if (ZH_PAST.test(text)) return 'past';
  return 'present';
}
