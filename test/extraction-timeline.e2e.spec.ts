import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeOpenAiReply, type FakeOpenAiServer } from '@stratagate/model/testing';
import { describeBackend } from '@stratagate/store/testing';
import { startFakeModelNode, type TestNode } from './harness.ts';

type Body = { messages: { role: string; content: string }[] };
interface TimelineLine {
  id: string;
  title: string;
  status: string;
}

/**
 * The events each block's extraction returns, by block marker. b01 holds one long event with a
 * rare term ("alpha"); b02–b06 hold ten short events sharing a frequent one ("common"); b07–b09
 * hold events related to nothing. The target block, b10, is about "alpha common".
 */
const EVENTS: Record<string, { title: string; summary: string; tags: string[] }[]> = {
  b01: [
    {
      title: 'Alpha observatory telescope calibration',
      summary:
        'The alpha observatory telescope calibration procedure was reviewed in great detail by ' +
        'the visiting engineers, who checked mirrors, mounts, encoders and the cooling loop.',
      tags: ['alpha'],
    },
  ],
  ...Object.fromEntries(
    [2, 3, 4, 5, 6].map((b) => [
      `b0${b}`,
      [1, 2].map((k) => ({ title: `Common k${b}${k}`, summary: 'Common.', tags: [] })),
    ]),
  ),
  ...Object.fromEntries(
    [7, 8, 9].map((b) => [
      `b0${b}`,
      [1, 2].map((k) => ({
        title: `Zulu note ${b}${k}`,
        summary: `Unrelated remark number ${b}${k}.`,
        tags: ['zulu'],
      })),
    ]),
  ),
  b10: [{ title: 'Target noted', summary: 'The target block was noted.', tags: [] }],
};

function timelineModel(server: FakeOpenAiServer, seen: Map<string, TimelineLine[]>) {
  server.respondWith((raw) => {
    const body = raw as Body;
    const system = body.messages[0]?.content ?? '';
    const user = body.messages[1]?.content ?? '';
    if (system.startsWith('You maintain the knowledge graph')) {
      return fakeOpenAiReply.json({ nodes: [], edges: [] });
    }
    const marker = /@@(b\d\d)@@/.exec(user)?.[1];
    if (!marker) return undefined;
    if (system.startsWith('You summarise')) {
      const target = marker === 'b10';
      return fakeOpenAiReply.json({
        title: target ? 'Alpha common' : `Block ${marker}`,
        tags: target ? ['alpha', 'common'] : ['block'],
        summary: target ? 'Alpha common.' : `Block ${marker} was discussed.`,
        keyPoints: target
          ? ['Alpha common.', 'Common alpha.', 'Alpha.']
          : ['A point.', 'Another point.', 'A third point.'],
        shouldExtract: true,
      });
    }
    if (system.startsWith('You extract memory events')) {
      const ids = /Allowed sourceMessageIds: (.*)/.exec(user)![1]!.split(', ');
      seen.set(
        marker,
        [...user.matchAll(/^(\{"id".*\})$/gm)].map((m) => JSON.parse(m[1]!) as TimelineLine),
      );
      return fakeOpenAiReply.json({
        events: EVENTS[marker]!.map((e) => ({
          ...e,
          quotes: [],
          sourceMessageIds: [ids[0]!],
          scope: 'project',
          criticality: 'routine',
          temporal: {
            participants: [],
            precision: 'unknown',
            basis: 'unknown',
            eventType: 'other',
            status: 'occurred',
            mentionedAt: '2024-05-01T09:00:00Z',
          },
          relations: { supersedesEventIds: [], conflictsWithEventIds: [], relatedEventIds: [] },
          catalogHints: [],
        })),
      });
    }
    return undefined;
  });
}

describe(`the extraction timeline (MM-EVT-13) (${describeBackend()})`, () => {
  let t: TestNode;
  let fake: FakeOpenAiServer;
  const seen = new Map<string, TimelineLine[]>();
  beforeAll(async () => {
    ({ t, fake } = await startFakeModelNode('timeline', 'tl'));
    timelineModel(fake, seen);
  });
  afterAll(async () => {
    await t?.stop();
  });

  const post = async (marker: string) => {
    const res = await t.request('POST', '/v1/spaces/tl/turns', {
      turnId: marker,
      messages: [
        { role: 'user', content: `Notes for @@${marker}@@ follow.` },
        { role: 'assistant', content: 'Noted.' },
      ],
    });
    expect(res.status).toBe(202);
    await t.settle('tl');
  };

  it('shows 8 events found by event search over the block L0–L2 (BM25), then the 4 most recent extracted ones; forgotten events are left out', async () => {
    for (let b = 1; b <= 9; b++) await post(`b0${b}`);
    const all = (await t.request('GET', '/v1/spaces/tl/memory-events?limit=100')).body.events as {
      id: string;
      title: string;
    }[];
    expect(all).toHaveLength(17);
    const id = (title: string) => all.find((e) => e.title === title)!.id;
    const forgotten = id('Common k61');
    expect(
      (await t.request('POST', `/v1/spaces/tl/memory-events/${forgotten}/forget`)).status,
    ).toBe(202);

    await post('b10');
    const timeline = seen.get('b10')!;
    // Exactly 12 (8 + 4) when enough events exist (memory-model.md §16).
    expect(timeline).toHaveLength(12);
    const relevant = timeline.slice(0, 8);
    const recent = timeline.slice(8);
    // The rare term outweighs the frequent one (BM25's idf), though its event is long: token
    // overlap per event length put the short "common" events first and left it out.
    expect(relevant[0]!.id).toBe(id('Alpha observatory telescope calibration'));
    expect(relevant.slice(1).every((e) => e.title.startsWith('Common'))).toBe(true);
    expect(timeline.map((e) => e.id)).not.toContain(forgotten);
    // The most recent extracted events not already shown: b09's, then b08's.
    expect(
      recent
        .slice(0, 2)
        .map((e) => e.title)
        .sort(),
    ).toEqual(['Zulu note 91', 'Zulu note 92']);
    expect(
      recent
        .slice(2)
        .map((e) => e.title)
        .sort(),
    ).toEqual(['Zulu note 81', 'Zulu note 82']);
    expect(new Set(timeline.map((e) => e.id)).size).toBe(12);
  });
});
