import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeBackend } from '@stratagate/store/testing';
import { startTestNode, type TestNode } from './harness.ts';

const S = '/v1/spaces/talk';

describe(`"when was the school talk?" through search and the gate (${describeBackend()})`, () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode('school_talk');
    await t.request('PUT', `${S}/settings`, { blockSize: 1 });
    const post = (threadId: string, occurredAt: string, user: string) =>
      t.request('POST', `${S}/turns`, {
        threadId,
        occurredAt,
        messages: [
          { role: 'user', name: 'Caroline', content: user },
          { role: 'assistant', name: 'Melanie', content: 'Tell me more!' },
        ],
      });
    await post('s1', '2023-05-08T13:56:00Z', 'I started volunteering at the animal shelter.');
    await post(
      's2',
      '2023-06-09T13:56:00Z',
      'I gave a talk at a school last week about my journey.',
    );
    // Another thread whose message matches the query even better.
    await post(
      'other',
      '2023-06-10T10:00:00Z',
      'School talk, school talk: the school talk was about a talk at school.',
    );
    await t.settle('talk');
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('event search → partial; raw search → sufficient; adoption closes both batches', async () => {
    const events = await t.request('POST', `${S}/threads/s2/search/events`, {
      query: 'school talk',
    });
    expect(events.status).toBe(200);
    expect(events.body.hits.length).toBeGreaterThan(0);
    expect(events.body.hits[0].scoreMeaning).toContain('never a probability');
    const b1 = events.body.batchId as string;
    const partial = await t.request('POST', `${S}/threads/s2/assess`, {
      batchId: b1,
      verdict: 'partial',
      evidence_refs: [events.body.hits[0].ref],
      missing: 'the date of the talk',
      next_strategy: 'search_raw',
    });
    expect(partial.body).toMatchObject({ verdict: 'partial', nextStrategy: 'search_raw' });

    const raw = await t.request('POST', `${S}/threads/s2/search/raw`, {
      query: 'talk at a school last week',
      scope: 'session',
    });
    expect(raw.status).toBe(200);
    const hit = raw.body.hits[0];
    expect(hit.message.content).toContain('last week');
    expect(hit.message.createdAt).toBe('2023-06-09T13:56:00Z');
    expect(hit.nearby.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant']);
    const b2 = raw.body.batchId as string;
    const sufficient = await t.request('POST', `${S}/threads/s2/assess`, {
      batchId: b2,
      verdict: 'sufficient',
      evidence_refs: [hit.ref],
      fit: 'said on 2023-06-09: "last week"',
      next_strategy: 'answer',
    });
    expect(sufficient.body).toMatchObject({
      verdict: 'sufficient',
      evidenceRefs: [hit.ref],
      missing: '',
    });

    const open = (await t.request('GET', `${S}/threads/s2/batches`)).body.batches.map(
      (b: { batchId: string }) => b.batchId,
    );
    expect(open).toEqual([b1, b2]);
    const eventBefore = (await t.request('GET', `${S}/memory-events/${events.body.hits[0].id}`))
      .body;
    const a1 = await t.request('POST', `${S}/threads/s2/adopt`, {
      batchId: b1,
      receiptId: 'r-b1',
      evidence_refs: [],
    });
    expect(a1.body).toMatchObject({ incremented: 0, unresolvedBatchIds: [b2] });
    const a2 = await t.request('POST', `${S}/threads/s2/adopt`, {
      batchId: b2,
      receiptId: 'r-b2',
      evidence_refs: [hit.ref],
    });
    expect(a2.body).toMatchObject({
      incremented: 0,
      evidenceRefs: [hit.ref],
      unresolvedBatchIds: [],
    });
    await t.settle('talk');
    const eventAfter = (await t.request('GET', `${S}/memory-events/${events.body.hits[0].id}`))
      .body;
    // Raw refs reinforce nothing; the search only stamped last-retrieved.
    expect(eventAfter.weight.mentionCount).toBe(eventBefore.weight.mentionCount);
    expect(eventAfter.weight.lastRetrievedAt).not.toBeNull();
  });

  it('a thread-scoped raw search never returns another thread, even when it scores higher', async () => {
    const space = await t.request('POST', `${S}/threads/s2/search/raw`, {
      query: 'school talk',
      scope: 'space',
    });
    expect(space.body.hits[0].threadId).toBe('other');
    const session = await t.request('POST', `${S}/threads/s2/search/raw`, {
      query: 'school talk',
      scope: 'session',
    });
    expect(session.body.hits.length).toBeGreaterThan(0);
    expect(session.body.hits.every((h: { threadId: string }) => h.threadId === 's2')).toBe(true);
    const none = await t.request('POST', `${S}/threads/s2/search/raw`, {
      query: 'zebra xylophone',
    });
    expect(none.body.hits).toEqual([]);
  });
});

describe(`pin, forget and restore (MM-EVT-19) (${describeBackend()})`, () => {
  let t: TestNode;
  let eventId: string;
  beforeAll(async () => {
    t = await startTestNode('forget');
    await t.request('PUT', `${S}/settings`, { blockSize: 1 });
    await t.request('POST', `${S}/turns`, {
      threadId: 's',
      occurredAt: '2023-06-09T13:56:00Z',
      messages: [
        { role: 'user', name: 'Caroline', content: 'I gave a talk at a school last week.' },
      ],
    });
    await t.settle('talk');
    eventId = (await t.request('GET', `${S}/memory-events`)).body.events[0].id;
  });
  afterAll(async () => {
    await t?.stop();
  });

  const search = async () =>
    (
      await t.request('POST', `${S}/threads/s/search/events`, { query: 'talk school' })
    ).body.hits.map((h: { id: string }) => h.id);
  const weight = async () => (await t.request('GET', `${S}/memory-events/${eventId}`)).body.weight;

  it('a forgotten event leaves search with weight 0 and keeps provenance; restore brings it back', async () => {
    expect(await search()).toContain(eventId);
    expect((await t.request('POST', `${S}/memory-events/${eventId}/forget`)).status).toBe(202);
    await t.settle('talk');
    expect(await search()).not.toContain(eventId);
    expect((await weight()).value).toBe(0);
    const detail = (await t.request('GET', `${S}/memory-events/${eventId}`)).body;
    expect(detail.status).toBe('forgotten');
    expect(detail.sources[0].content).toContain('school');
    await t.request('POST', `${S}/memory-events/${eventId}/restore`);
    await t.settle('talk');
    expect(await search()).toContain(eventId);
  });

  it('a pinned event weighs 1; an unknown event is 404', async () => {
    await t.request('POST', `${S}/memory-events/${eventId}/pin`);
    await t.settle('talk');
    expect(await weight()).toMatchObject({ pinned: true, value: 1 });
    expect((await t.request('POST', `${S}/memory-events/evt_nope/forget`)).status).toBe(404);
  });
});
