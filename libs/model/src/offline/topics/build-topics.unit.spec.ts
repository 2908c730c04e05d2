import { describe, expect, it } from 'vitest';
import { decideTopicCompletion, sha256Hex, type TopicCategory } from '@stratagate/domain';
import { TopicProposal, type TopicSourceEvent } from '../../topics.schema.ts';
import { buildTopicsOffline } from './build-topics.ts';

const ev = (id: string, over: Partial<TopicSourceEvent> = {}): TopicSourceEvent => ({
  id,
  title: id,
  summary: `${id}.`,
  tags: [],
  catalogHints: [],
  participants: [],
  eventType: 'other',
  status: 'occurred',
  criticality: 'routine',
  supersedesEventIds: [],
  relatedEventIds: [],
  entities: [],
  cut: false,
  ...over,
});

const X = { name: 'X', type: 'project' as const };
/** Scenario S1 (npm → pnpm in project X), as extraction and the graph leave it. */
const S1: TopicSourceEvent[] = [
  ev('evt_e1', {
    title: 'X uses npm',
    summary: 'Project X uses npm.',
    tags: ['npm'],
    eventType: 'decision',
    entities: [X, { name: 'npm', type: 'tool' }],
  }),
  ev('evt_e2', {
    title: 'X switched from npm to pnpm',
    summary: 'X switched to pnpm: installs are faster and it suits the multi-package layout.',
    tags: ['pnpm', 'npm'],
    eventType: 'change',
    supersedesEventIds: ['evt_e1'],
    entities: [X, { name: 'pnpm', type: 'tool' }, { name: 'npm', type: 'tool' }],
  }),
  ev('evt_e3', {
    title: 'CI pending verification',
    summary: 'CI still has to be verified after the migration.',
    tags: ['ci'],
    status: 'ongoing',
    relatedEventIds: ['evt_e2'],
    entities: [X],
  }),
  ev('evt_e4', {
    title: 'Prototype next week',
    summary: 'The prototype of X is planned for the following week.',
    eventType: 'plan',
    status: 'planned',
    entities: [X, { name: 'prototype', type: 'tool' }],
  }),
];

const accept = (proposal: TopicProposal, events: TopicSourceEvent[]) =>
  decideTopicCompletion(
    {
      jobId: 'job_1',
      mode: 'incremental',
      attempt: 1,
      events: events.map((e) => ({
        id: e.id,
        fingerprint: sha256Hex(e.id),
        category: 'decisions' as TopicCategory,
        cut: e.cut,
      })),
      candidates: [],
      proposed: proposal.topics,
      model: { provider: 'offline', promptVersion: 'offline-topics@1' },
    },
    { fingerprintOf: (id) => sha256Hex(id), candidateMembersOf: () => undefined },
  );

describe('offline topic builder (MM-TOP-2/8)', () => {
  it('S1: one "Project X" chapter whose build section holds npm → pnpm and the CI check', () => {
    const proposal = buildTopicsOffline({ events: S1, candidates: [] });
    expect(TopicProposal.parse(proposal)).toEqual(proposal);
    expect(proposal.topics).toHaveLength(1);
    const [x] = proposal.topics;
    expect(x!.title).toBe('Project X');
    expect(x!.topicId).toBeNull();
    expect(x!.sourceEventIds.sort()).toEqual(['evt_e1', 'evt_e2', 'evt_e3', 'evt_e4']);
    const build = x!.sections.find((s) => s.sourceEventIds.includes('evt_e2'))!;
    expect(build.sourceEventIds.sort()).toEqual(['evt_e1', 'evt_e2', 'evt_e3']);
    expect(build.title).toContain('pnpm');
    const change = x!.paragraphs.find((p) => p.kind === 'change')!;
    expect(change.sourceEventIds).toEqual(['evt_e2']);
    expect(change.text).toBe(S1[1]!.summary);
    expect(x!.paragraphs.find((p) => p.kind === 'open-question')?.sourceEventIds).toContain(
      'evt_e3',
    );
    const decided = accept(proposal, S1);
    expect(decided.ok).toBe(true);
  });

  it('is deterministic whatever the order of its input', () => {
    const a = buildTopicsOffline({ events: S1, candidates: [] });
    const b = buildTopicsOffline({ events: [...S1].reverse(), candidates: [] });
    expect(b).toEqual(a);
  });

  it('never names a chapter after a version or a bug; people and places get their own', () => {
    const events = [
      ev('evt_1', {
        title: 'Released 2.1',
        eventType: 'release',
        tags: ['2.1', 'release'],
        entities: [
          { name: '2.1', type: 'project' },
          { name: 'Atlas', type: 'project' },
        ],
      }),
      ev('evt_2', {
        title: 'Bug in login',
        eventType: 'incident',
        tags: ['bug'],
        entities: [{ name: 'Atlas', type: 'project' }],
      }),
      ev('evt_3', {
        title: 'Met Caroline',
        eventType: 'meeting',
        participants: ['Caroline'],
        entities: [{ name: 'Caroline', type: 'person' }],
      }),
      ev('evt_4', {
        title: 'Trip to Lisbon',
        entities: [{ name: 'Lisbon', type: 'place' }],
      }),
    ];
    const proposal = buildTopicsOffline({ events, candidates: [] });
    expect(proposal.topics.map((t) => t.title).sort()).toEqual([
      'Caroline',
      'Lisbon',
      'Project Atlas',
    ]);
    expect(accept(proposal, events).ok).toBe(true);
  });

  it('adds to a candidate that shares the subject or is linked, keeping room for 8 paragraphs', () => {
    const candidate = {
      topicId: 'topic_0123456789ab',
      title: 'Project X',
      description: 'X',
      sections: [{ title: 'npm', eventIds: ['evt_e1'] }],
      paragraphs: [],
      paragraphCount: 7,
      memberIds: ['evt_e1'],
      members: [{ id: 'evt_e1', title: 'X uses npm', tags: ['npm'], entities: [X] }],
    };
    const proposal = buildTopicsOffline({
      events: [
        S1[1]!,
        ev('evt_z', { title: 'Holiday in Rome', entities: [{ name: 'Rome', type: 'place' }] }),
      ],
      candidates: [candidate],
    });
    const x = proposal.topics.find((t) => t.topicId === candidate.topicId)!;
    expect(x.sourceEventIds).toEqual(['evt_e2']);
    expect(x.paragraphs).toHaveLength(1);
    // It supersedes a member of the chapter's "npm" section: the switch joins that strand.
    expect(x.sections).toEqual([{ title: 'npm', sourceEventIds: ['evt_e2'] }]);
    expect(proposal.topics.find((t) => t.topicId === null)?.title).toBe('Rome');
  });

  it('lets an event cut for length back only a scope paragraph', () => {
    const events = [ev('evt_long', { cut: true, eventType: 'decision', entities: [X] })];
    const [x] = buildTopicsOffline({ events, candidates: [] }).topics;
    expect(x!.paragraphs.map((p) => p.kind)).toEqual(['scope']);
  });

  it('names a chapter without entities after its most common tag', () => {
    const events = [
      ev('evt_1', { tags: ['gardening', 'tomatoes'] }),
      ev('evt_2', { tags: ['gardening'] }),
    ];
    const proposal = buildTopicsOffline({ events, candidates: [] });
    expect(proposal.topics.map((t) => t.title)).toEqual(['gardening']);
  });

  it('names sections after things and activities, never a verb, an adjective or a date', () => {
    const caroline = { name: 'Caroline', type: 'person' as const };
    const events = [
      ev('evt_1', { tags: ['agree', 'art'], entities: [caroline] }),
      ev('evt_2', { tags: ['painting', 'big'], entities: [caroline] }),
      ev('evt_3', { tags: ['ago', 'happy', '18th'], entities: [caroline] }),
    ];
    const [chapter] = buildTopicsOffline({ events, candidates: [] }).topics;
    expect(chapter!.title).toBe('Caroline');
    const titles = chapter!.sections.map((x) => x.title).sort();
    expect(titles).toEqual(['Other', 'art', 'painting']);
  });
});
