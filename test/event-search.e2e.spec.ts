import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fuzzyMatch, matchesAllParticipants } from '@stratagate/domain';
import { describeBackend } from '@stratagate/store/testing';
import { startTestNode, type TestNode } from './harness.ts';

const S = '/v1/spaces/evsearch';

interface Card {
  id: string;
  title: string;
  summary: string;
  tags: string[];
  eventType: string;
  pool: string;
  status: string;
  temporal: { participants?: string[]; happenedStart?: string; happenedEnd?: string };
  sourceTime: string;
  createdAt: string;
}

const TURNS: [string, string, string][] = [
  ['2023-05-08T10:00:00Z', 'Caroline', 'I went to a LGBTQ support group meeting yesterday.'],
  ['2023-05-20T10:00:00Z', 'Melanie', 'I signed up for a pottery class on 2023-05-25.'],
  ['2023-06-09T10:00:00Z', 'Caroline', 'I gave a talk at a school last week about my journey.'],
  ['2023-06-30T10:00:00Z', 'Melanie', 'We decided to go camping at the lake on 2023-07-08.'],
  ['2023-07-15T10:00:00Z', 'Caroline', 'I finished the painting of a sunset for the charity show.'],
  [
    '2023-08-01T10:00:00Z',
    'Melanie',
    'My kids and I had a meeting with the school counselor today.',
  ],
];

describe(`event search: filters, temporal intent, pools (${describeBackend()})`, () => {
  let t: TestNode;
  let all: Card[] = [];
  beforeAll(async () => {
    t = await startTestNode('event_search');
    await t.request('PUT', `${S}/settings`, { blockSize: 1 });
    for (const [at, name, content] of TURNS) {
      await t.request('POST', `${S}/turns`, {
        threadId: 'chat',
        occurredAt: at,
        messages: [
          { role: 'user', name, content },
          { role: 'assistant', content: 'That sounds great, tell me more!' },
        ],
      });
    }
    await t.settle('evsearch');
    const listed = await t.request('GET', `${S}/memory-events?status=active&limit=200`);
    all = listed.body.events.map((e: Card & { temporal: Card['temporal'] }) => ({
      ...e,
      sourceTime: e.temporal.happenedStart ?? e.createdAt,
    }));
  });
  afterAll(async () => {
    await t?.stop();
  });

  const search = async (body: Record<string, unknown>) => {
    const res = await t.request('POST', `${S}/threads/chat/search/events`, body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.hits as (Card & { ref: string })[];
  };

  it('the corpus has events with participants and occurrence dates to filter on', () => {
    expect(all.length).toBeGreaterThanOrEqual(4);
    expect(all.some((e) => (e.temporal.participants ?? []).length > 0)).toBe(true);
    expect(all.filter((e) => e.temporal.happenedStart).length).toBeGreaterThanOrEqual(2);
  });

  it('participants must all match fuzzily; the result is exactly the matching events', async () => {
    for (const name of ['caroline', 'MELANIE', 'Carol']) {
      const expected = all
        .filter((e) => matchesAllParticipants([name], e.temporal.participants ?? []))
        .map((e) => e.id)
        .sort();
      expect(expected.length, name).toBeGreaterThan(0);
      const hits = await search({ participants: [name], limit: 20 });
      expect(hits.map((h) => h.id).sort(), name).toEqual(expected);
    }
    expect(await search({ participants: ['caroline', 'nobody'], query: '' })).toEqual([]);
  });

  it('eventType matches type, title, summary or tags, fuzzily', async () => {
    const wanted = 'meeting';
    const expected = all
      .filter((e) =>
        [e.eventType, e.title, e.summary, ...e.tags].some((v) => fuzzyMatch(wanted, v)),
      )
      .map((e) => e.id)
      .sort();
    expect(expected.length).toBeGreaterThan(0);
    const hits = await search({ eventType: wanted, limit: 20 });
    expect(hits.map((h) => h.id).sort()).toEqual(expected);
  });

  it('an occurrence range keeps overlapping events; first/latest order them by time', async () => {
    const from = '2023-05-01';
    const to = '2023-07-31';
    const dated = all.filter((e) => {
      const start = e.temporal.happenedStart;
      if (!start) return false;
      const end = e.temporal.happenedEnd ?? start;
      return (
        Date.parse(end) >= Date.parse(from) && Date.parse(start) <= Date.parse(`${to}T23:59:59Z`)
      );
    });
    expect(dated.length).toBeGreaterThanOrEqual(2);
    const byTime = [...dated].sort(
      (a, b) => Date.parse(a.temporal.happenedStart!) - Date.parse(b.temporal.happenedStart!),
    );
    const first = await search({
      happenedFrom: from,
      happenedTo: `${to}T23:59:59Z`,
      temporalIntent: 'first',
      limit: 20,
    });
    expect(first.map((h) => h.id)).toEqual(byTime.map((e) => e.id));
    const latest = await search({
      happenedFrom: from,
      happenedTo: `${to}T23:59:59Z`,
      temporalIntent: 'latest',
      limit: 20,
    });
    expect(latest.map((h) => h.id)).toEqual([...byTime].reverse().map((e) => e.id));
  });

  it('eventIds is a hard scope applied before ranking', async () => {
    const school = await search({ query: 'school' });
    expect(school.length).toBeGreaterThanOrEqual(2);
    const scope = [school.at(-1)!.id];
    const scoped = await search({ query: 'school', eventIds: scope });
    expect(scoped.map((h) => h.id)).toEqual(scope);
    expect(await search({ query: 'camping lake', eventIds: scope })).toEqual([]);
  });

  it('when no event meets every filter, each filter and BM25 still vote', async () => {
    // Caroline never went camping: no event meets both filters, so BM25 and each filter vote.
    const hits = await search({
      query: 'lake',
      participants: ['Caroline'],
      eventType: 'camping',
      limit: 20,
    });
    const ids = new Set(hits.map((h) => h.id));
    const camping = all.find((e) => /camping/i.test(`${e.title} ${e.summary}`));
    expect(camping).toBeDefined();
    expect(ids.has(camping!.id)).toBe(true);
    expect(
      all
        .filter((e) => matchesAllParticipants(['Caroline'], e.temporal.participants ?? []))
        .every((e) => ids.has(e.id)),
    ).toBe(true);
  });

  it('a lexical query with no match and no filter is empty; an empty query browses', async () => {
    expect(await search({ query: 'xylophone' })).toEqual([]);
    const browse = await search({ query: '', limit: 20 });
    expect(browse.map((h) => h.id).sort()).toEqual(all.map((e) => e.id).sort());
  });

  it('fuses the agent pool at agentMemoryWeight; 0 switches it off', async () => {
    const remembered = await t.request('POST', `${S}/threads/chat/remember`, {
      content: 'Glazing brushes stay locked up overnight.',
      category: 'fact',
    });
    expect(remembered.body.outcome).toBe('ADDED');
    const agentId = remembered.body.eventId as string;
    const rankOf = (hits: { id: string }[]) => hits.findIndex((h) => h.id === agentId);
    const heavy = await search({
      query: 'Melanie glazing brushes',
      agentMemoryWeight: 5,
      limit: 20,
    });
    const light = await search({
      query: 'Melanie glazing brushes',
      agentMemoryWeight: 0.1,
      limit: 20,
    });
    expect(rankOf(heavy)).toBe(0);
    expect(rankOf(light)).toBeGreaterThan(0);
    expect(rankOf(await search({ query: 'Melanie glazing brushes', agentMemoryWeight: 0 }))).toBe(
      -1,
    );
    expect(heavy[0]!.pool).toBe('agent');
  });

  it('rejects a reversed range and bad dates with field paths', async () => {
    const reversed = await t.request('POST', `${S}/threads/chat/search/events`, {
      happenedFrom: '2023-07-01',
      happenedTo: '2023-06-01',
    });
    expect(reversed.status).toBe(400);
    expect(reversed.body.error.issues[0].path).toBe('/happenedTo');
    const bad = await t.request('POST', `${S}/threads/chat/search/events`, {
      happenedFrom: 'last tuesday',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.issues[0].path).toBe('/happenedFrom');
  });

  it('with filters met by some events, only those events are returned', async () => {
    const hits = await search({ query: 'camping', participants: ['Caroline'], limit: 20 });
    const caroline = all
      .filter((e) => matchesAllParticipants(['Caroline'], e.temporal.participants ?? []))
      .map((e) => e.id)
      .sort();
    expect(hits.map((h) => h.id).sort()).toEqual(caroline);
  });

  it('trackRetrieval false leaves lastRetrievedAt alone', async () => {
    await t.settle('evsearch');
    const target = all[0]!;
    const before = (await t.request('GET', `${S}/memory-events/${target.id}`)).body.weight
      .lastRetrievedAt;
    await search({ eventIds: [target.id], query: '', trackRetrieval: false });
    await t.settle('evsearch');
    const after = (await t.request('GET', `${S}/memory-events/${target.id}`)).body.weight
      .lastRetrievedAt;
    expect(after).toBe(before);
    await search({ eventIds: [target.id], query: '' });
    await t.settle('evsearch');
    const stamped = (await t.request('GET', `${S}/memory-events/${target.id}`)).body.weight
      .lastRetrievedAt;
    expect(stamped).not.toBe(before);
  });
});
