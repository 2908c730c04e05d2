import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createOfflineProvider,
  createOpenAiCompatibleProvider,
  type ModelPort,
} from '@stratagate/model';
import {
  fakeOpenAiReply,
  startFakeOpenAiServer,
  type FakeOpenAiServer,
} from '@stratagate/model/testing';
import { describeBackend } from '@stratagate/store/testing';
import { startTestNode, type TestNode } from './harness.ts';

const S = '/v1/spaces/agentmem';

async function event(t: TestNode, id: string) {
  const res = await t.request('GET', `${S}/memory-events/${id}`);
  expect(res.status).toBe(200);
  return res.body;
}

describe(`remember (MM-REM) through the HTTP API (${describeBackend()})`, () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode('remember');
    await t.request('PUT', `${S}/settings`, { blockSize: 2 });
    await t.request('POST', `${S}/turns`, {
      threadId: 'chat',
      messages: [
        { role: 'user', content: 'We moved the monorepo to pnpm today.' },
        { role: 'assistant', content: 'Great, I will use pnpm from now on.' },
      ],
    });
    await t.settle('agentmem');
  });
  afterAll(async () => {
    await t?.stop();
  });

  let added = '';
  it('adds a clear-new memory to the agent pool at once, sourced from the open tail', async () => {
    const res = await t.request('POST', `${S}/threads/chat/remember`, {
      content: 'The monorepo uses pnpm as its package manager.',
      category: 'decision',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      outcome: 'ADDED',
      gate: 'clear-new',
      provenance: 'open_tail',
      reinforcedEventId: null,
    });
    added = res.body.eventId;
    const e = await event(t, added);
    expect(e).toMatchObject({
      pool: 'agent',
      status: 'active',
      title: 'The monorepo uses pnpm as its package manager.',
      tags: ['agent-recorded', 'category:decision'],
      eventType: 'decision',
      scope: 'user',
      criticality: 'routine',
      sourceBlockId: null,
    });
    expect(e.sourceMessageIds).toHaveLength(2);
    expect(e.weight.mentionCount).toBe(1);

    // Searchable at once in the agent pool, and switched off with agentMemoryWeight 0.
    const found = await t.request('POST', `${S}/threads/chat/search/events`, {
      query: 'package manager',
    });
    expect(found.body.hits.map((h: { id: string }) => h.id)).toContain(added);
    const off = await t.request('POST', `${S}/threads/chat/search/events`, {
      query: 'package manager',
      agentMemoryWeight: 0,
    });
    expect(off.body.hits.map((h: { id: string }) => h.id)).not.toContain(added);
  });

  it('the same statement again reinforces (n + 1) and writes nothing', async () => {
    const before = (await t.request('GET', `${S}/memory-events?status=all`)).body.events.length;
    const res = await t.request('POST', `${S}/threads/chat/remember`, {
      content: 'The monorepo uses pnpm as its package manager.',
      category: 'decision',
    });
    expect(res.body).toMatchObject({
      outcome: 'REINFORCED',
      gate: 'exact-duplicate',
      reinforcedEventId: added,
      eventId: null,
    });
    // A near duplicate (containment ≥ 0.85) reinforces too.
    const near = await t.request('POST', `${S}/threads/chat/remember`, {
      content: 'The monorepo uses pnpm as its package manager now.',
      category: 'decision',
    });
    expect(near.body).toMatchObject({ outcome: 'REINFORCED', gate: 'containment-duplicate' });
    expect(near.body.containment).toBeGreaterThanOrEqual(0.85);
    expect((await event(t, added)).weight.mentionCount).toBe(3);
    const after = (await t.request('GET', `${S}/memory-events?status=all`)).body.events.length;
    expect(after).toBe(before);
  });

  it('an overlapping but different statement is marked as a conflict, linked both ways', async () => {
    const res = await t.request('POST', `${S}/threads/chat/remember`, {
      content: 'Yarn replaced pnpm as the monorepo package manager.',
      category: 'correction',
    });
    expect(res.body).toMatchObject({
      outcome: 'CONFLICT_MARKED',
      gate: 'heuristic-conflict',
      decider: null,
    });
    expect(res.body.matchedEventIds).toContain(added);
    const fresh = await event(t, res.body.eventId);
    expect(fresh.temporal.conflictsWithEventIds).toContain(added);
    expect(fresh.eventType).toBe('change');
    expect((await event(t, added)).conflictsWith).toEqual([res.body.eventId]);
    // Both stay active: a conflict is a relation, not a status.
    expect((await event(t, added)).status).toBe('active');
  });

  it('a requestId makes a retry answer the same once; another body under it is 409', async () => {
    const body = { content: 'Deploys happen on Thursdays.', requestId: 'sess1:tool:42' };
    const first = await t.request('POST', `${S}/threads/chat/remember`, body);
    const again = await t.request('POST', `${S}/threads/chat/remember`, body);
    expect(first.body.outcome).toBe('ADDED');
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const other = await t.request('POST', `${S}/threads/chat/remember`, {
      ...body,
      content: 'Deploys happen on Fridays.',
    });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('request_conflict');
  });

  it('rejects blank content and unknown categories with field paths', async () => {
    const blank = await t.request('POST', `${S}/threads/chat/remember`, { content: '   ' });
    expect(blank.status).toBe(400);
    expect(blank.body.error.issues[0].path).toBe('/content');
    const bad = await t.request('POST', `${S}/threads/chat/remember`, {
      content: 'x y',
      category: 'gossip',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.issues[0].path).toBe('/category');
  });
});

describe(`remember with a model decider (${describeBackend()})`, () => {
  let t: TestNode;
  let fake: FakeOpenAiServer;
  let decision: { action: string; confidence?: number; targetIds?: string[] } | 'fail' = 'fail';
  beforeAll(async () => {
    fake = await startFakeOpenAiServer();
    fake.respondWith((body) => {
      const messages = (body as { messages: { content: string }[] }).messages;
      const ids = [...messages.at(-1)!.content.matchAll(/<memory id="([^"]+)"/g)].map((m) => m[1]);
      if (decision === 'fail') return fakeOpenAiReply.status(400, { error: 'bad request' });
      return fakeOpenAiReply.json({
        action: decision.action,
        targetIds: decision.targetIds ?? ids,
        ...(decision.confidence === undefined ? {} : { confidence: decision.confidence }),
        reason: 'scripted',
      });
    });
    const remote = createOpenAiCompatibleProvider({
      baseUrl: fake.baseUrl,
      model: 'decider',
      maxRetries: 0,
      timeoutMs: 10_000,
    });
    // Offline derivations, with the remote model only as the remember decider.
    const model: ModelPort = { ...createOfflineProvider(), decideRemember: remote.decideRemember! };
    t = await startTestNode('remember_decider', { model });
    await t.request('POST', `${S}/turns`, {
      threadId: 'chat',
      messages: [{ role: 'user', content: 'Hello there.' }],
    });
    await t.settle('agentmem');
  });
  afterAll(async () => {
    await t?.stop();
    await fake?.close();
  });

  const remember = (content: string) =>
    t.request('POST', `${S}/threads/chat/remember`, { content, category: 'fact' });

  it('SUPERSEDE at ≥ 0.85 writes the event and supersedes the targets with the cap', async () => {
    const old = await remember('The team standup is at nine in the morning.');
    expect(old.body.outcome).toBe('ADDED');
    decision = { action: 'SUPERSEDE', confidence: 0.95 };
    const res = await remember('The team standup moved to ten in the morning.');
    expect(res.body).toMatchObject({
      outcome: 'SUPERSEDED',
      gate: 'decider',
      supersededEventIds: [old.body.eventId],
    });
    expect(res.body.decider).toMatchObject({ action: 'SUPERSEDE', confidence: 0.95 });
    const target = await event(t, old.body.eventId);
    expect(target).toMatchObject({ status: 'superseded', supersededBy: res.body.eventId });
    expect(target.weight.value).toBeLessThanOrEqual(0.1);
  });

  it('below 0.85 (or with no confidence) the decision is downgraded to a conflict', async () => {
    const old = await remember('The office coffee machine is on the third floor.');
    decision = { action: 'MERGE' };
    const res = await remember('Coffee machine moved to the second floor kitchen.');
    expect(res.body).toMatchObject({ outcome: 'CONFLICT_MARKED', gate: 'downgraded' });
    expect(res.body.decider).toMatchObject({ downgradedFrom: 'MERGE', confidence: null });
    expect((await event(t, old.body.eventId)).status).toBe('active');
  });

  it('IGNORE writes nothing; a decider failure marks a conflict (decider-error)', async () => {
    await remember('The parking garage closes at midnight on weekdays.');
    decision = { action: 'IGNORE', confidence: 0.9 };
    const ignored = await remember('Parking garage now shuts at midnight.');
    // Containment of this pair is below 0.85 but above 0.35: ambiguous, so the decider runs.
    expect(ignored.body).toMatchObject({ outcome: 'IGNORED', eventId: null });
    decision = 'fail';
    const failed = await remember('Garage closes at eleven during the week.');
    expect(failed.body).toMatchObject({ outcome: 'CONFLICT_MARKED', gate: 'decider-error' });
    expect(failed.body.decider.error).toEqual(expect.any(String));
  });
});

describe(`remember disabled by the host (${describeBackend()})`, () => {
  it('answers 403 remember_disabled and writes nothing', async () => {
    const t = await startTestNode('remember_off', {
      config: { STRATAGATE_REMEMBER_ENABLED: 'false' },
    });
    try {
      await t.request('POST', `${S}/turns`, {
        threadId: 'chat',
        messages: [{ role: 'user', content: 'Hello.' }],
      });
      const res = await t.request('POST', `${S}/threads/chat/remember`, { content: 'a b c' });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('remember_disabled');
    } finally {
      await t.stop();
    }
  });
});
