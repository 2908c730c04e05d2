import nlp from '../nlp/compromise.ts';
import { takeCodePoints } from '@stratagate/domain';
import type {
  ProposedTopic,
  TopicBuildInput,
  TopicCandidateInput,
  TopicEntity,
  TopicProposal,
  TopicSourceEvent,
} from '../../topics.schema.ts';

/** Bump when the builder changes what it outputs. */
export const OFFLINE_TOPICS_PROMPT_VERSION = 'offline-topics@2';

const MAX_PARAGRAPHS = 8;
const MAX_CITED = 12;

/** Lasting subjects a chapter may be named after, best first (MM-TOP-2). Tools are strands. */
const CHAPTER_TYPES: readonly TopicEntity['type'][] = [
  'project',
  'organization',
  'place',
  'person',
];

const norm = (text: string) => text.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
const HAN = /\p{Script=Han}/u;
/** Versions, bug numbers and the like are never a chapter (MM-TOP-2). */
const TRANSIENT = /^(v?\d+(\.\d+)*|#?\d+|bug|bugs|issue|issues|fix|release|版本|问题)$/i;

/** The lasting subject an event is about: its best-typed entity, ties by name. */
function subjectOf(event: TopicSourceEvent): TopicEntity | undefined {
  const lasting = event.entities.filter(
    (e) => CHAPTER_TYPES.includes(e.type) && !TRANSIENT.test(e.name.trim()),
  );
  lasting.sort(
    (a, b) =>
      CHAPTER_TYPES.indexOf(a.type) - CHAPTER_TYPES.indexOf(b.type) ||
      (norm(a.name) < norm(b.name) ? -1 : norm(a.name) > norm(b.name) ? 1 : 0),
  );
  return lasting[0];
}

/** Words that tie events together: entity names, participants and tags, normalised. */
function keysOf(event: TopicSourceEvent): Set<string> {
  return new Set(
    [
      ...event.entities.map((e) => `e:${norm(e.name)}`),
      ...event.participants.map((p) => `p:${norm(p)}`),
      ...event.tags.filter((t) => !TRANSIENT.test(t.trim())).map((t) => `t:${norm(t)}`),
    ].filter((k) => k.length > 2),
  );
}

class Groups {
  private readonly parent = new Map<string, string>();
  find(id: string): string {
    let root = id;
    while (this.parent.has(root) && this.parent.get(root) !== root) root = this.parent.get(root)!;
    this.parent.set(id, root);
    return root;
  }
  join(a: string, b: string): void {
    const [x, y] = [this.find(a), this.find(b)].sort();
    if (x !== y) this.parent.set(y!, x!);
  }
}

/** The candidate an event belongs to, if any: its subject is the chapter's, or it is linked. */
function candidateFor(
  event: TopicSourceEvent,
  candidates: readonly TopicCandidateInput[],
  placed: ReadonlyMap<string, string>,
): TopicCandidateInput | undefined {
  const back = candidates.find((c) => c.memberIds.includes(event.id));
  if (back) return back;
  const linked = [...event.supersedesEventIds, ...event.relatedEventIds]
    .map((id) => placed.get(id))
    .find((t) => t !== undefined);
  if (linked) return candidates.find((c) => c.topicId === linked);
  const subject = subjectOf(event);
  const keys = keysOf(event);
  let best: { c: TopicCandidateInput; score: number } | undefined;
  for (const c of candidates) {
    let score = 0;
    if (subject && norm(c.title).includes(norm(subject.name))) score += 4;
    const memberKeys = new Set(
      c.members.flatMap((m) => [
        ...m.entities.map((e) => `e:${norm(e.name)}`),
        ...m.tags.map((t) => `t:${norm(t)}`),
      ]),
    );
    for (const k of keys) if (memberKeys.has(k)) score += k.startsWith('e:') ? 2 : 1;
    if (score >= 2 && (!best || score > best.score)) best = { c, score };
  }
  return best?.c;
}

function chapterTitle(members: readonly TopicSourceEvent[]): string {
  const counts = new Map<string, { entity: TopicEntity; n: number }>();
  for (const e of members) {
    const s = subjectOf(e);
    if (!s) continue;
    const k = norm(s.name);
    counts.set(k, { entity: s, n: (counts.get(k)?.n ?? 0) + 1 });
  }
  const top = [...counts.values()].sort(
    (a, b) =>
      b.n - a.n ||
      CHAPTER_TYPES.indexOf(a.entity.type) - CHAPTER_TYPES.indexOf(b.entity.type) ||
      (norm(a.entity.name) < norm(b.entity.name) ? -1 : 1),
  )[0];
  if (top) {
    const { name, type } = top.entity;
    if (type !== 'project' || /project|项目/i.test(name)) return takeCodePoints(name, 120);
    return takeCodePoints(HAN.test(name) ? `${name}项目` : `Project ${name}`, 120);
  }
  const tag = mostCommon(members.flatMap((e) => e.tags.filter((t) => !TRANSIENT.test(t))));
  return takeCodePoints(tag ?? members[0]!.title, 120);
}

function mostCommon(values: readonly string[]): string | undefined {
  const counts = new Map<string, { value: string; n: number }>();
  for (const v of values) {
    const k = norm(v);
    if (k === '') continue;
    counts.set(k, { value: counts.get(k)?.value ?? v, n: (counts.get(k)?.n ?? 0) + 1 });
  }
  return [...counts.values()].sort(
    (a, b) => b.n - a.n || (norm(a.value) < norm(b.value) ? -1 : 1),
  )[0]?.value;
}

/**
 * Whether a tag can name a strand: a thing or an activity ("adoption", "painting"), never a
 * verb, an adjective, a date or a number ("agree", "big", "ago", "18th"). Chinese tags are kept.
 */
function namesAStrand(tag: string): boolean {
  if (HAN.test(tag)) return true;
  const doc = nlp(tag);
  return (
    (doc.has('#Noun') || doc.has('#Gerund')) &&
    !doc.has('#Value') &&
    !doc.has('#Date') &&
    !doc.has('#Pronoun')
  );
}

/** The section of a chapter's members that share no strand and no subject word. */
const otherSection = (chapter: string) => (HAN.test(chapter) ? '其他' : 'Other');

/**
 * Sections of one chapter: events joined by supersession, "related" links and shared strands
 * (catalog hints, tools, tags other than the chapter's own subject), titled by what they share.
 */
function sectionsOf(
  members: readonly TopicSourceEvent[],
  chapter: string,
  existing: readonly { title: string; eventIds?: readonly string[] }[],
): { title: string; sourceEventIds: string[] }[] {
  const ids = new Set(members.map((e) => e.id));
  const groups = new Groups();
  const strand = (e: TopicSourceEvent) =>
    new Set([
      ...e.catalogHints.map((h) => `h:${norm(h)}`),
      ...strandEntities(e, chapter).map((x) => `e:${norm(x.name)}`),
    ]);
  const owner = new Map<string, string>();
  for (const e of members) {
    groups.find(e.id);
    for (const other of [...e.supersedesEventIds, ...e.relatedEventIds]) {
      if (ids.has(other)) groups.join(e.id, other);
    }
    for (const k of strand(e)) {
      const first = owner.get(k);
      if (first) groups.join(e.id, first);
      else owner.set(k, e.id);
    }
  }
  const byRoot = new Map<string, TopicSourceEvent[]>();
  for (const e of members) {
    const root = groups.find(e.id);
    byRoot.set(root, [...(byRoot.get(root) ?? []), e]);
  }
  return [...byRoot.values()].map((group) => {
    const hint = mostCommon(group.flatMap((e) => e.catalogHints));
    const tools = [
      ...new Set(group.flatMap((e) => strandEntities(e, chapter).map((x) => x.name))),
    ].sort();
    const tag = mostCommon(
      group.flatMap((e) =>
        e.tags.filter((t) => !norm(chapter).includes(norm(t)) && namesAStrand(t)),
      ),
    );
    const raw =
      hint ?? (tools.length > 0 ? tools.slice(0, 3).join(', ') : (tag ?? otherSection(chapter)));
    // An existing section linked to the strand, or of the same name, takes it (MM-TOP-2).
    const links = new Set(group.flatMap((e) => [...e.supersedesEventIds, ...e.relatedEventIds]));
    const same =
      existing.find((s) => (s.eventIds ?? []).some((id) => links.has(id))) ??
      existing.find((s) => norm(s.title) === norm(raw));
    return {
      title: takeCodePoints(same?.title ?? raw, 80),
      sourceEventIds: group.map((e) => e.id),
    };
  });
}

/** Entities that make a strand: tools, organisations and places other than the chapter's own. */
function strandEntities(e: TopicSourceEvent, chapter: string): TopicEntity[] {
  return e.entities.filter((x) => x.type !== 'person' && !norm(chapter).includes(norm(x.name)));
}

type Kind = ProposedTopic['paragraphs'][number]['kind'];

function kindOf(e: TopicSourceEvent): Kind {
  if (e.cut) return 'scope';
  if (e.eventType === 'change' || e.eventType === 'migration' || e.supersedesEventIds.length > 0)
    return 'change';
  if (
    e.status === 'ongoing' ||
    e.status === 'planned' ||
    (e.status === 'unknown' && /\?|？|pending|待/.test(e.summary))
  )
    return e.eventType === 'decision' ? 'decision' : 'open-question';
  if (e.eventType === 'decision' || e.eventType === 'plan' || e.eventType === 'cancellation')
    return 'decision';
  return 'history';
}

const KIND_ORDER: readonly Kind[] = ['history', 'decision', 'change', 'open-question', 'scope'];

/** Extractive paragraphs, one per kind: the events' own summaries, each citing its events. */
function paragraphsOf(
  members: readonly TopicSourceEvent[],
  room: number,
): ProposedTopic['paragraphs'] {
  const out: ProposedTopic['paragraphs'] = [];
  for (const kind of KIND_ORDER) {
    if (out.length >= room) break;
    const ofKind = members.filter((e) => kindOf(e) === kind).slice(0, MAX_CITED);
    if (ofKind.length === 0) continue;
    const sentences: string[] = [];
    const cited: string[] = [];
    for (const e of ofKind) {
      const sentence = kind === 'scope' ? e.title : e.summary;
      const next = [...sentences, sentence].join(' ');
      if (sentences.length > 0 && [...next].length > 600) break;
      sentences.push(sentence);
      cited.push(e.id);
    }
    out.push({ kind, text: takeCodePoints(sentences.join(' '), 600), sourceEventIds: cited });
  }
  return out;
}

function describe(members: readonly TopicSourceEvent[]): string {
  return takeCodePoints([...new Set(members.map((e) => e.title))].join('; '), 400);
}

/**
 * The offline topic builder: deterministic and extractive. Events go to a candidate chapter when
 * they are linked to one of its members or share its subject; the rest are grouped by shared
 * entities, participants, tags and links, and each group becomes a chapter named after its
 * lasting subject (a project, an organisation, a place, a person). Tools, versions, bugs and
 * progress become sections inside it. Every paragraph is the members' own summaries.
 */
export function buildTopicsOffline(input: TopicBuildInput): TopicProposal {
  const events = [...input.events].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const placed = new Map<string, string>();
  for (const c of input.candidates) for (const id of c.memberIds) placed.set(id, c.topicId);
  const toCandidate = new Map<string, TopicSourceEvent[]>();
  const loose: TopicSourceEvent[] = [];
  for (const e of events) {
    const c = candidateFor(e, input.candidates, placed);
    if (c) {
      toCandidate.set(c.topicId, [...(toCandidate.get(c.topicId) ?? []), e]);
      placed.set(e.id, c.topicId);
    } else loose.push(e);
  }
  const groups = new Groups();
  const ids = new Set(loose.map((e) => e.id));
  const owner = new Map<string, string>();
  for (const e of loose) {
    groups.find(e.id);
    for (const other of [...e.supersedesEventIds, ...e.relatedEventIds]) {
      if (ids.has(other)) groups.join(e.id, other);
    }
    const subject = subjectOf(e);
    for (const k of subject ? [`s:${norm(subject.name)}`] : [...keysOf(e)]) {
      const first = owner.get(k);
      if (first) groups.join(e.id, first);
      else owner.set(k, e.id);
    }
  }
  const byRoot = new Map<string, TopicSourceEvent[]>();
  for (const e of loose) {
    const root = groups.find(e.id);
    byRoot.set(root, [...(byRoot.get(root) ?? []), e]);
  }
  const topics: ProposedTopic[] = [];
  for (const c of input.candidates) {
    const members = toCandidate.get(c.topicId);
    if (!members) continue;
    topics.push({
      topicId: c.topicId,
      title: c.title,
      description: c.description,
      sourceEventIds: members.map((e) => e.id),
      sections: sectionsOf(members, c.title, c.sections),
      paragraphs: paragraphsOf(members, Math.max(0, MAX_PARAGRAPHS - c.paragraphCount)),
    });
  }
  const titles = new Set(topics.map((t) => norm(t.title)));
  for (const members of byRoot.values()) {
    let title = chapterTitle(members);
    // Two groups with one name are one chapter (no duplicate titles, MM-TOP-8).
    const same = topics.find((t) => t.topicId === null && norm(t.title) === norm(title));
    if (same) {
      same.sourceEventIds.push(...members.map((e) => e.id));
      continue;
    }
    if (titles.has(norm(title))) title = takeCodePoints(`${title} (${members[0]!.title})`, 120);
    titles.add(norm(title));
    topics.push({
      topicId: null,
      title,
      description: describe(members),
      sourceEventIds: members.map((e) => e.id),
      sections: [],
      paragraphs: [],
    });
  }
  // New chapters' sections and paragraphs from their final members.
  const byId = new Map(events.map((e) => [e.id, e]));
  for (const t of topics) {
    if (t.topicId !== null) continue;
    const members = t.sourceEventIds.map((id) => byId.get(id)!);
    t.description = describe(members);
    t.sections = sectionsOf(members, t.title, []);
    t.paragraphs = paragraphsOf(members, MAX_PARAGRAPHS);
  }
  return { topics: topics.slice(0, 12) };
}
