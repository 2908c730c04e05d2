import { estimateTokens, takeCodePoints } from '../blocks/tokens.ts';
import { bm25Rank } from '../retrieval/bm25.ts';
import {
  TOPIC_CATEGORIES,
  TOPIC_PARAGRAPH_KINDS,
  type TopicCategory,
  type TopicParagraph,
  type TopicParagraphKind,
} from '../records/topic-records.ts';
import { normaliseTitle } from './topic-inputs.ts';
import { sha256Hex } from './sha256.ts';

/** A chapter as the read model holds it, or a fallback for an event no chapter holds yet. */
export interface TopicView {
  /** `topic_…`, or `fallback:<eventId>` (MM-TOP-4). */
  id: string;
  title: string;
  description: string;
  category: TopicCategory;
  /** When the chapter was first built (a fallback: when its event was recorded). */
  createdAt: string;
  sourceEventIds: readonly string[];
  sections: readonly { title: string; sourceEventIds: readonly string[] }[];
  paragraphs: readonly TopicParagraph[];
  isFallback: boolean;
  /** A member changed since the chapter was built: shown as a fallback until it is rebuilt. */
  pendingUpdate: boolean;
}

/** What the directory line of a topic shows and is ordered by: no members, sections or text. */
export type TopicEntry = Pick<
  TopicView,
  'id' | 'title' | 'description' | 'category' | 'createdAt' | 'isFallback' | 'pendingUpdate'
>;

export interface TopicCoverage {
  totalEvents: number;
  summarizedEvents: number;
  omittedEvents: number;
}

/** MM-TOP-10 */
export const DIRECTORY_TOKEN_BUDGET = 400;
export const EXPAND_TOKEN_BUDGET = 2400;
export const LIST_DEFAULT_LIMIT = 12;
export const LIST_MAX_LIMIT = 20;
export const EXPAND_MAX_SOURCE_IDS = 12;

/** MM-TOP-3 default titles of the overview's paragraph groups, in kind order. */
const KIND_TITLES: Record<TopicParagraphKind, { zh: string; en: string }> = {
  history: { zh: '发展脉络', en: 'History' },
  decision: { zh: '关键设计决策', en: 'Key decisions' },
  change: { zh: '重要变化', en: 'Changes' },
  'open-question': { zh: '尚未解决的问题', en: 'Open questions' },
  scope: { zh: '主题范围', en: 'Scope' },
};

const HAN = /\p{Script=Han}/u;

/** The default title of a paragraph group, in the chapter's language (MM-GEN-12). */
export function defaultParagraphTitle(kind: TopicParagraphKind, chapterTitle: string): string {
  return HAN.test(chapterTitle) ? KIND_TITLES[kind].zh : KIND_TITLES[kind].en;
}

export function topicCoverage(topic: TopicView): TopicCoverage {
  const cited = new Set(topic.paragraphs.flatMap((p) => p.sourceEventIds));
  const summarized = topic.sourceEventIds.filter((id) => cited.has(id)).length;
  return {
    totalEvents: topic.sourceEventIds.length,
    summarizedEvents: summarized,
    omittedEvents: topic.sourceEventIds.length - summarized,
  };
}

/** MM-TOP-5: chapters by creation, then id; fallbacks (and chapters pending an update) last. */
export function orderChapters<T extends TopicEntry>(topics: readonly T[]): T[] {
  const last = (t: TopicEntry) => (t.isFallback ? 1 : 0);
  return [...topics].sort(
    (a, b) =>
      last(a) - last(b) ||
      (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0) ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}

/**
 * MM-TOP-5: sections by their earliest member (`rank`: the event's place in the space, lower is
 * earlier), ties by SHA-256 of `section:` and the normalised title. New content gets a later
 * rank, so it never moves an existing section.
 */
export function orderSections<S extends { title: string; sourceEventIds: readonly string[] }>(
  sections: readonly S[],
  rank: (eventId: string) => number,
): S[] {
  const keyed = sections.map((s) => ({
    s,
    first: Math.min(...s.sourceEventIds.map(rank)),
    tie: sha256Hex(`section:${normaliseTitle(s.title)}`),
  }));
  keyed.sort((a, b) => a.first - b.first || (a.tie < b.tie ? -1 : a.tie > b.tie ? 1 : 0));
  return keyed.map((k) => k.s);
}

export interface NumberedTopic<T extends TopicView = TopicView> {
  /** 1-based chapter number; computed on every read, never stored. */
  number: number;
  topic: T;
}

export function numberChapters<T extends TopicView>(topics: readonly T[]): NumberedTopic<T>[] {
  return orderChapters(topics).map((topic, i) => ({ number: i + 1, topic }));
}

export interface RenderedDirectory {
  text: string;
  tokens: number;
  budget: number;
  topicCount: number;
  /** `lines`: one line per topic; `categories`: too long, so counts and one entry per category. */
  form: 'lines' | 'categories';
}

const topicLine = (t: TopicEntry) => {
  const title = takeCodePoints(t.title, 64);
  const description = takeCodePoints(t.description, 48);
  const pending = t.pendingUpdate ? ' (pending update)' : '';
  return `- ${t.id} ${title}${pending}${description ? ` — ${description}` : ''}`;
};

/**
 * MM-TOP-10: the directory shown in recall, within `budget` tokens. One line per topic when that
 * fits; else a header, the count per category, the first topic of each category and a pointer to
 * list topics by category and offset, so every topic stays reachable.
 */
export function renderDirectory(
  topics: readonly TopicEntry[],
  budget = DIRECTORY_TOKEN_BUDGET,
  options: {
    /** The caller's tokenizer; the domain's estimate by default. */
    count?: (text: string) => number;
    /** Topics not passed in (a large space's further fallbacks), by category: counted, not listed. */
    unlisted?: Partial<Record<TopicCategory, number>>;
  } = {},
): RenderedDirectory {
  const count = options.count ?? estimateTokens;
  const unlisted = TOPIC_CATEGORIES.reduce((n, c) => n + (options.unlisted?.[c] ?? 0), 0);
  const ordered = orderChapters(topics);
  const topicCount = ordered.length + unlisted;
  const header = `Topic directory (${topicCount} topics; navigation only, search events before citing):`;
  if (topicCount === 0) return { text: '', tokens: 0, budget, topicCount: 0, form: 'lines' };
  const full = [header, ...ordered.map(topicLine)].join('\n');
  const fullTokens = unlisted === 0 ? count(full) : Number.POSITIVE_INFINITY;
  if (fullTokens <= budget) {
    return { text: full, tokens: fullTokens, budget, topicCount, form: 'lines' };
  }
  const lines = [header];
  const counts = countByCategory(ordered);
  for (const c of TOPIC_CATEGORIES) counts[c] += options.unlisted?.[c] ?? 0;
  const pointer =
    'More: list topics with a category and an offset (12 per page) to see every topic.';
  for (const category of TOPIC_CATEGORIES) {
    const n = counts[category];
    if (n === 0) continue;
    const first = ordered.find((t) => t.category === category);
    const line = first ? `${category} (${n}): ${topicLine(first).slice(2)}` : `${category} (${n})`;
    const next = [...lines, line, pointer].join('\n');
    // A category whose entry does not fit is still counted in the pointer's listing.
    lines.push(count(next) <= budget ? line : `${category} (${n})`);
  }
  lines.push(pointer);
  let text = lines.join('\n');
  while (count(text) > budget && lines.length > 2) {
    lines.splice(lines.length - 2, 1);
    text = lines.join('\n');
  }
  return { text, tokens: count(text), budget, topicCount, form: 'categories' };
}

export function countByCategory(topics: readonly TopicEntry[]): Record<TopicCategory, number> {
  const counts = Object.fromEntries(TOPIC_CATEGORIES.map((c) => [c, 0])) as Record<
    TopicCategory,
    number
  >;
  for (const t of topics) counts[t.category] += 1;
  return counts;
}

export interface ListTopicsInput {
  query?: string;
  category?: TopicCategory;
  offset?: number;
  limit?: number;
}

export interface TopicListPage<T extends TopicView = TopicView> {
  total: number;
  offset: number;
  nextOffset: number | null;
  categories: Record<TopicCategory, number>;
  topics: NumberedTopic<T>[];
}

/** MM-TOP-10 *list topics*: by category, BM25 over title ×4 and description ×2, paged. */
export function listTopics<T extends TopicView>(
  topics: readonly T[],
  input: ListTopicsInput = {},
): TopicListPage<T> {
  const numbered = numberChapters(topics);
  let matching = input.category
    ? numbered.filter((n) => n.topic.category === input.category)
    : numbered;
  const query = input.query?.trim() ?? '';
  if (query !== '') {
    const byId = new Map(matching.map((n) => [n.topic.id, n]));
    matching = bm25Rank(
      query,
      matching.map((n) => ({
        id: n.topic.id,
        fields: [
          { text: n.topic.title, weight: 4 },
          { text: n.topic.description, weight: 2 },
        ],
      })),
    ).map((r) => byId.get(r.id)!);
  }
  const offset = Math.max(0, input.offset ?? 0);
  const limit = Math.min(LIST_MAX_LIMIT, Math.max(1, input.limit ?? LIST_DEFAULT_LIMIT));
  const page = matching.slice(offset, offset + limit);
  const end = offset + page.length;
  return {
    total: matching.length,
    offset,
    nextOffset: end < matching.length ? end : null,
    categories: countByCategory(topics),
    topics: page,
  };
}

export interface ExpandedSection {
  number: string;
  title: string;
  sourceEventIds: string[];
  totalSourceEvents: number;
}

export interface ExpandedParagraphGroup {
  kind: TopicParagraphKind;
  title: string;
  paragraphs: { title?: string; text: string; sourceEventIds: string[] }[];
}

export interface ExpandedTopic {
  topicId: string;
  number: number;
  title: string;
  description: string;
  category: TopicCategory;
  isFallback: boolean;
  pendingUpdate: boolean;
  coverage: TopicCoverage;
  /** `n.0`: the overview, its paragraphs grouped by kind. */
  overview: { number: string; groups: ExpandedParagraphGroup[] };
  sections: ExpandedSection[];
  /** The first members, ≤ 12; the rest are reached by a topic-scoped event search. */
  sourceEventIds: string[];
  totalSections: number;
  omittedSections: number;
  totalSourceEvents: number;
  omittedSourceEvents: number;
  omittedOverviewParagraphs: number;
  tokens: number;
  budget: number;
}

/**
 * MM-TOP-10 *expand topic*: sections first, then overview paragraphs, while they fit in
 * `budget` tokens; what did not fit is counted, never silently dropped.
 */
export function expandTopic(
  numbered: NumberedTopic,
  rank: (eventId: string) => number,
  budget = EXPAND_TOKEN_BUDGET,
): ExpandedTopic {
  const { topic, number } = numbered;
  const sourceEventIds = topic.sourceEventIds.slice(0, EXPAND_MAX_SOURCE_IDS);
  const base = {
    topicId: topic.id,
    number,
    title: topic.title,
    description: topic.description,
    category: topic.category,
    isFallback: topic.isFallback,
    pendingUpdate: topic.pendingUpdate,
    coverage: topicCoverage(topic),
    sourceEventIds,
  };
  let used = estimateTokens(JSON.stringify(base));
  const fits = (value: unknown) => {
    const cost = estimateTokens(JSON.stringify(value));
    if (used + cost > budget) return false;
    used += cost;
    return true;
  };
  const sections: ExpandedSection[] = [];
  const ordered = orderSections(topic.sections, rank);
  for (const [i, s] of ordered.entries()) {
    const section: ExpandedSection = {
      number: `${number}.${i + 1}`,
      title: s.title,
      sourceEventIds: s.sourceEventIds.slice(0, EXPAND_MAX_SOURCE_IDS),
      totalSourceEvents: s.sourceEventIds.length,
    };
    if (!fits(section)) break;
    sections.push(section);
  }
  const groups: ExpandedParagraphGroup[] = [];
  let shown = 0;
  let full = false;
  for (const kind of TOPIC_PARAGRAPH_KINDS) {
    const ofKind = topic.paragraphs.filter((p) => p.kind === kind);
    if (ofKind.length === 0 || full) continue;
    const group: ExpandedParagraphGroup = {
      kind,
      title: defaultParagraphTitle(kind, topic.title),
      paragraphs: [],
    };
    if (!fits({ kind, title: group.title })) break;
    for (const p of ofKind) {
      const paragraph = {
        ...(p.title === undefined ? {} : { title: p.title }),
        text: p.text,
        sourceEventIds: p.sourceEventIds.slice(0, EXPAND_MAX_SOURCE_IDS),
      };
      if (!fits(paragraph)) {
        full = true;
        break;
      }
      group.paragraphs.push(paragraph);
      shown += 1;
    }
    if (group.paragraphs.length > 0) groups.push(group);
  }
  return {
    ...base,
    overview: { number: `${number}.0`, groups },
    sections,
    totalSections: topic.sections.length,
    omittedSections: topic.sections.length - sections.length,
    totalSourceEvents: topic.sourceEventIds.length,
    omittedSourceEvents: topic.sourceEventIds.length - sourceEventIds.length,
    omittedOverviewParagraphs: topic.paragraphs.length - shown,
    tokens: used,
    budget,
  };
}

export interface MemberPage {
  eventIds: string[];
  totalSourceEvents: number;
  offset: number;
  nextOffset: number | null;
}

/** MM-TOP-11: a topic-scoped search with an empty query pages the members in `first` order. */
export function pageMembers(
  memberIds: readonly string[],
  offset: number,
  limit: number,
): MemberPage {
  const page = memberIds.slice(offset, offset + limit);
  const end = offset + page.length;
  return {
    eventIds: page,
    totalSourceEvents: memberIds.length,
    offset,
    nextOffset: end < memberIds.length ? end : null,
  };
}

/** MM-TOP-4: an event no chapter holds yet, shown under its own title. */
export function fallbackTopic(event: {
  id: string;
  title: string;
  summary: string;
  category: TopicCategory;
  recordedAt: string;
}): TopicView {
  return {
    id: `fallback:${event.id}`,
    title: takeCodePoints(event.title, 120),
    description: takeCodePoints(event.summary, 400),
    category: event.category,
    createdAt: event.recordedAt,
    sourceEventIds: [event.id],
    sections: [],
    paragraphs: [],
    isFallback: true,
    pendingUpdate: false,
  };
}
