import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { estimateTokens } from '../blocks/tokens.ts';
import type { MemoryEventCard } from '../events/memory-event.ts';
import { TOPIC_CATEGORIES, TopicsBuilt, type TopicCategory } from '../records/topic-records.ts';
import { sha256Hex } from './sha256.ts';
import { eventCategory, eventFingerprint, majorityCategory, newTopicId } from './topic-inputs.ts';
import {
  expandTopic,
  fallbackTopic,
  listTopics,
  numberChapters,
  orderSections,
  pageMembers,
  renderDirectory,
  type TopicView,
} from './topic-directory.ts';
import {
  decideTopicCompletion,
  type TopicBatchEvent,
  type TopicCandidate,
  type TopicCompletionCommand,
} from './topic-completion.ts';

const card = (over: Partial<MemoryEventCard> = {}): MemoryEventCard => ({
  id: 'evt_1',
  title: 'X uses npm',
  summary: 'Project X uses npm.',
  tags: ['npm'],
  quotes: [],
  sourceMessageIds: ['msg_1'],
  sourceBlockId: 'blk_1',
  scope: 'project',
  criticality: 'routine',
  temporal: {
    precision: 'unknown',
    basis: 'unknown',
    status: 'unknown',
    participants: [],
    eventType: 'decision',
    supersedesEventIds: [],
    conflictsWithEventIds: [],
    relatedEventIds: [],
  },
  catalogHints: [],
  formedTurn: 1,
  ...over,
});

const view = (i: number, category: TopicCategory = 'other', over: Partial<TopicView> = {}) => ({
  id: `topic_${i.toString(16).padStart(12, '0')}`,
  title: `Chapter number ${i} about a lasting subject`,
  description: `What chapter ${i} holds, in a sentence or so.`,
  category,
  createdAt: `2026-05-${String(1 + (i % 28)).padStart(2, '0')}T00:00:${String(i % 60).padStart(2, '0')}Z`,
  sourceEventIds: [`evt_${i}`],
  sections: [],
  paragraphs: [],
  isFallback: false,
  pendingUpdate: false,
  ...over,
});

describe('sha256Hex', () => {
  it.each(['', 'abc', 'section:dependencies and build', '中文😀', 'x'.repeat(1000)])(
    'matches node:crypto for %j',
    (text) => {
      expect(sha256Hex(text)).toBe(createHash('sha256').update(text, 'utf8').digest('hex'));
    },
  );
});

describe('eventFingerprint (MM-TOP-7)', () => {
  it('ignores weight, updatedAt, formedTurn and participant node ids', () => {
    const base = eventFingerprint(card());
    expect(eventFingerprint({ ...card({ formedTurn: 9 }), weight: 0.3, updatedAt: 'x' })).toBe(
      base,
    );
    expect(
      eventFingerprint({ ...card(), temporal: { ...card().temporal, participantNodeIds: ['n'] } }),
    ).toBe(base);
  });
  it('changes with the content and is independent of key order', () => {
    expect(eventFingerprint(card({ summary: 'Project X uses pnpm.' }))).not.toBe(
      eventFingerprint(card()),
    );
    const reordered = Object.fromEntries(Object.entries(card()).reverse());
    expect(eventFingerprint(reordered)).toBe(eventFingerprint(card()));
  });
});

describe('categories (MM-TOP-6)', () => {
  const typed = (eventType: MemoryEventCard['temporal']['eventType'], criticality = 'routine') => ({
    criticality,
    temporal: { eventType },
  });
  it('sets one per event', () => {
    expect(eventCategory(typed('release', 'preference'))).toBe('preferences');
    expect(eventCategory(typed('plan'))).toBe('decisions');
    expect(eventCategory(typed('migration'))).toBe('work');
    expect(eventCategory(typed('meeting'))).toBe('relationships');
    expect(eventCategory(typed('other'))).toBe('other');
  });
  it('takes the majority, ties in category order', () => {
    expect(majorityCategory(['work', 'decisions', 'work'])).toBe('work');
    expect(majorityCategory(['work', 'decisions'])).toBe('decisions');
    expect(majorityCategory(['other', 'relationships'])).toBe('relationships');
    expect(majorityCategory([])).toBe('other');
  });
});

describe('numbering (MM-TOP-5)', () => {
  it('orders chapters by creation then id, fallbacks last; new ones never renumber', () => {
    const a = view(1, 'other', { createdAt: '2026-05-01T00:00:00Z' });
    const b = view(2, 'other', { createdAt: '2026-05-01T00:00:00Z' });
    const f = fallbackTopic({
      id: 'evt_9',
      title: 'Loose event',
      summary: 's',
      category: 'other',
      recordedAt: '2026-04-01T00:00:00Z',
    });
    expect(numberChapters([f, b, a]).map((n) => [n.number, n.topic.id])).toEqual([
      [1, a.id],
      [2, b.id],
      [3, 'fallback:evt_9'],
    ]);
    const later = view(3, 'other', { createdAt: '2026-06-01T00:00:00Z' });
    expect(
      numberChapters([later, f, b, a])
        .slice(0, 2)
        .map((n) => n.topic.id),
    ).toEqual([a.id, b.id]);
  });
  it('orders sections by earliest member, ties by the hash of the title', () => {
    const rank = (id: string) => Number(id.slice(4));
    const s = orderSections(
      [
        { title: 'Testing', sourceEventIds: ['evt_5'] },
        { title: 'Dependencies and build', sourceEventIds: ['evt_7', 'evt_2'] },
        { title: 'Zeta', sourceEventIds: ['evt_5'] },
      ],
      rank,
    );
    expect(s[0]!.title).toBe('Dependencies and build');
    const tie = [sha256Hex('section:testing') < sha256Hex('section:zeta') ? 'Testing' : 'Zeta'];
    expect(s[1]!.title).toBe(tie[0]);
  });
});

describe('directory in recall (MM-TOP-10)', () => {
  it('is one line per topic when it fits', () => {
    const d = renderDirectory([view(1), view(2, 'work')]);
    expect(d.form).toBe('lines');
    expect(d.text.split('\n')).toHaveLength(3);
    expect(d.text).toContain('topic_000000000001');
    expect(d.tokens).toBe(estimateTokens(d.text));
  });
  it('keeps 35 topics within 400 tokens, every topic reachable by category and offset', () => {
    const topics = Array.from({ length: 35 }, (_, i) =>
      view(i + 1, TOPIC_CATEGORIES[i % TOPIC_CATEGORIES.length]!),
    );
    const d = renderDirectory(topics);
    expect(d.form).toBe('categories');
    expect(d.tokens).toBeLessThanOrEqual(400);
    expect(estimateTokens(d.text)).toBe(d.tokens);
    for (const c of TOPIC_CATEGORIES) expect(d.text).toContain(`${c} (7)`);
    const reached = new Set<string>();
    for (const category of TOPIC_CATEGORIES) {
      let offset: number | null = 0;
      while (offset !== null) {
        const page: ReturnType<typeof listTopics> = listTopics(topics, { category, offset });
        for (const n of page.topics) reached.add(n.topic.id);
        offset = page.nextOffset;
      }
    }
    expect(reached.size).toBe(35);
  });
  it('counts topics it was not given and never lists them as if they were all', () => {
    const d = renderDirectory([view(1), view(2, 'work')], 400, {
      unlisted: { work: 50 },
      count: (text) => text.length,
    });
    expect(d.form).toBe('categories');
    expect(d.topicCount).toBe(52);
    expect(d.text).toContain('work (51)');
    expect(d.tokens).toBe(d.text.length);
    expect(d.tokens).toBeLessThanOrEqual(400);
  });
  it('cuts titles to 64 and descriptions to 48 code points', () => {
    const d = renderDirectory([
      view(1, 'other', { title: '长'.repeat(100), description: 'd'.repeat(90) }),
    ]);
    expect(d.text).toContain(`${'长'.repeat(64)} — ${'d'.repeat(48)}`);
    expect(d.text).not.toContain('长'.repeat(65));
  });
});

describe('list topics (MM-TOP-10)', () => {
  const topics = Array.from({ length: 35 }, (_, i) => view(i + 1));
  it('pages 12 by default, 20 at most, with totals and categories', () => {
    const pages = [0, 12, 24].map((offset) => listTopics(topics, { offset }));
    expect(pages.map((p) => p.topics.length)).toEqual([12, 12, 11]);
    expect(pages.map((p) => p.nextOffset)).toEqual([12, 24, null]);
    expect(pages[0]!.total).toBe(35);
    expect(pages[0]!.categories.other).toBe(35);
    expect(listTopics(topics, { limit: 50 }).topics).toHaveLength(20);
    expect(pages[1]!.topics[0]!.number).toBe(13);
  });
  it('ranks a query over title and description', () => {
    const withX = [...topics, view(99, 'work', { title: 'Project X', description: 'builds' })];
    const page = listTopics(withX, { query: 'project x' });
    expect(page.topics[0]!.topic.title).toBe('Project X');
    expect(listTopics(withX, { query: 'zzzunmatched' }).total).toBe(0);
  });
});

describe('topic members (MM-TOP-11)', () => {
  it('page 12/12/11 over 35 members', () => {
    const ids = Array.from({ length: 35 }, (_, i) => `evt_${i}`);
    const pages = [0, 12, 24].map((o) => pageMembers(ids, o, 12));
    expect(pages.map((p) => p.eventIds.length)).toEqual([12, 12, 11]);
    expect(pages.map((p) => p.nextOffset)).toEqual([12, 24, null]);
    expect(pages.flatMap((p) => p.eventIds)).toEqual(ids);
  });
});

describe('expand topic (MM-TOP-10)', () => {
  const rank = (id: string) => Number(id.replace(/\D/g, ''));
  it('shows sections then paragraphs within the budget and counts what it left out', () => {
    const members = Array.from({ length: 30 }, (_, i) => `evt_${i}`);
    const topic = view(1, 'decisions', {
      title: 'Project X',
      sourceEventIds: members,
      sections: Array.from({ length: 10 }, (_, i) => ({
        title: `Strand ${i}`,
        sourceEventIds: members.slice(i * 3, i * 3 + 3),
      })),
      paragraphs: Array.from({ length: 8 }, (_, i) => ({
        kind: i % 2 === 0 ? ('history' as const) : ('decision' as const),
        text: 'word '.repeat(110).trim(),
        sourceEventIds: members.slice(0, 13 - i),
      })),
    });
    const full = expandTopic({ number: 2, topic }, rank);
    expect(full.tokens).toBeLessThanOrEqual(2400);
    expect(full.sections.map((s) => s.number)).toEqual(
      Array.from({ length: 10 }, (_, i) => `2.${i + 1}`),
    );
    expect(full.overview.number).toBe('2.0');
    expect(full.overview.groups.map((g) => g.title)).toEqual(['History', 'Key decisions']);
    expect(full.sourceEventIds).toHaveLength(12);
    expect(full.totalSourceEvents).toBe(30);
    expect(full.omittedSourceEvents).toBe(18);
    for (const g of full.overview.groups)
      for (const p of g.paragraphs) expect(p.sourceEventIds.length).toBeLessThanOrEqual(12);
    const tight = expandTopic({ number: 2, topic }, rank, 700);
    expect(tight.tokens).toBeLessThanOrEqual(700);
    expect(tight.omittedOverviewParagraphs).toBeGreaterThan(0);
    expect(tight.totalSections - tight.omittedSections).toBe(tight.sections.length);
    const shown = tight.overview.groups.reduce((n, g) => n + g.paragraphs.length, 0);
    expect(shown + tight.omittedOverviewParagraphs).toBe(8);
  });
  it('titles groups in Chinese for a Chinese chapter', () => {
    const topic = view(1, 'other', {
      title: '项目 X',
      paragraphs: [{ kind: 'open-question', text: 'CI 尚待验证', sourceEventIds: ['evt_1'] }],
    });
    expect(expandTopic({ number: 1, topic }, rank).overview.groups[0]!.title).toBe(
      '尚未解决的问题',
    );
  });
});

describe('decideTopicCompletion (MM-TOP-7/8)', () => {
  const ev = (id: string, over: Partial<TopicBatchEvent> = {}): TopicBatchEvent => ({
    id,
    fingerprint: sha256Hex(id),
    category: 'decisions',
    cut: false,
    ...over,
  });
  const s1: TopicCompletionCommand = {
    jobId: 'job_1',
    mode: 'incremental',
    attempt: 1,
    events: [ev('evt_e1'), ev('evt_e2'), ev('evt_e3', { category: 'work' })],
    candidates: [],
    proposed: [
      {
        topicId: null,
        title: 'Project X',
        description: 'The X project: its tools and progress.',
        sourceEventIds: ['evt_e1', 'evt_e2', 'evt_e3'],
        sections: [
          { title: 'Dependencies and build', sourceEventIds: ['evt_e1', 'evt_e2', 'evt_e3'] },
        ],
        paragraphs: [
          {
            kind: 'change',
            text: 'X moved from npm to pnpm.',
            sourceEventIds: ['evt_e1', 'evt_e2'],
          },
          { kind: 'open-question', text: 'CI pending verification.', sourceEventIds: ['evt_e3'] },
        ],
      },
    ],
    model: { provider: 'offline', promptVersion: 'topics-offline-v1' },
  };
  const fresh = {
    fingerprintOf: (id: string) => sha256Hex(id),
    candidateMembersOf: () => undefined,
  };

  it('given S1, when accepted, then one chapter with a stable id, its section and fingerprints', () => {
    const d = decideTopicCompletion(s1, fresh);
    if (!d.ok) throw new Error(d.message);
    expect(TopicsBuilt.parse(d.record)).toEqual(d.record);
    const [x] = d.record.data.topics;
    expect(x!.topicId).toBe(newTopicId('job_1', 'Project X', 'evt_e1'));
    expect(x!.topicId).toMatch(/^topic_[0-9a-f]{12}$/);
    expect(x!.category).toBe('decisions');
    expect(x!.sections[0]!.sourceEventIds).toEqual(['evt_e1', 'evt_e2', 'evt_e3']);
    expect(Object.keys(x!.inputFingerprints).sort()).toEqual(['evt_e1', 'evt_e2', 'evt_e3']);
  });

  it('rejects a result whose source changed since the claim', () => {
    const d = decideTopicCompletion(s1, {
      ...fresh,
      fingerprintOf: (id) => (id === 'evt_e2' ? undefined : sha256Hex(id)),
    });
    expect(d).toMatchObject({ ok: false, code: 'source-changed' });
  });

  it.each([
    ['an unassigned event', { sourceEventIds: ['evt_e1', 'evt_e2'] }],
    ['an unknown topic id', { topicId: 'topic_aaaaaaaaaaaa' }],
    [
      'a paragraph citing a non-member',
      { paragraphs: [{ kind: 'scope' as const, text: 't', sourceEventIds: ['evt_zz'] }] },
    ],
    [
      'nine paragraphs',
      {
        paragraphs: Array.from({ length: 9 }, () => ({
          kind: 'history' as const,
          text: 't',
          sourceEventIds: ['evt_e1'],
        })),
      },
    ],
  ])('rejects %s as invalid output', (_name, over) => {
    const d = decideTopicCompletion({ ...s1, proposed: [{ ...s1.proposed[0]!, ...over }] }, fresh);
    expect(d).toMatchObject({ ok: false, code: 'invalid-output' });
  });

  it('rejects duplicate titles and a cut event backing anything but scope', () => {
    const twice = decideTopicCompletion(
      {
        ...s1,
        proposed: [
          {
            ...s1.proposed[0]!,
            sourceEventIds: ['evt_e1', 'evt_e2'],
            sections: [],
            paragraphs: [],
          },
          {
            ...s1.proposed[0]!,
            title: 'project  x',
            sourceEventIds: ['evt_e3'],
            sections: [],
            paragraphs: [],
          },
        ],
      },
      fresh,
    );
    expect(twice).toMatchObject({ ok: false, code: 'invalid-output' });
    const cut = decideTopicCompletion(
      { ...s1, events: [ev('evt_e1', { cut: true }), ev('evt_e2'), ev('evt_e3')] },
      fresh,
    );
    expect(cut).toMatchObject({ ok: false, code: 'invalid-output' });
  });

  it('extends a candidate: members, sections and paragraphs kept verbatim, same-named sections shared', () => {
    const first = decideTopicCompletion(s1, fresh);
    if (!first.ok) throw new Error(first.message);
    const x = first.record.data.topics[0]!;
    const candidate: TopicCandidate = {
      ...x,
      memberCategories: ['decisions', 'decisions', 'work'],
    };
    const next = decideTopicCompletion(
      {
        ...s1,
        jobId: 'job_2',
        events: [ev('evt_e4', { category: 'decisions' })],
        candidates: [candidate],
        proposed: [
          {
            topicId: x.topicId,
            title: 'Project X',
            description: x.description,
            sourceEventIds: ['evt_e4'],
            sections: [{ title: 'dependencies AND build', sourceEventIds: ['evt_e4'] }],
            paragraphs: [
              { kind: 'history', text: 'Prototype next week.', sourceEventIds: ['evt_e4'] },
            ],
          },
        ],
      },
      { ...fresh, candidateMembersOf: () => x.sourceEventIds },
    );
    if (!next.ok) throw new Error(next.message);
    const y = next.record.data.topics[0]!;
    expect(y.topicId).toBe(x.topicId);
    expect(y.sourceEventIds).toEqual(['evt_e1', 'evt_e2', 'evt_e3', 'evt_e4']);
    expect(y.sections).toEqual([
      { title: 'Dependencies and build', sourceEventIds: ['evt_e1', 'evt_e2', 'evt_e3', 'evt_e4'] },
    ]);
    expect(y.paragraphs.slice(0, 2)).toEqual(x.paragraphs);
    expect(Object.keys(y.inputFingerprints)).toHaveLength(4);
    const stale = decideTopicCompletion(
      {
        ...s1,
        events: [ev('evt_e4')],
        candidates: [candidate],
        proposed: [
          {
            ...s1.proposed[0]!,
            topicId: x.topicId,
            sourceEventIds: ['evt_e4'],
            sections: [],
            paragraphs: [],
          },
        ],
      },
      { ...fresh, candidateMembersOf: () => ['evt_e1'] },
    );
    expect(stale).toMatchObject({ ok: false, code: 'source-changed' });
  });
});
