import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeBackend } from '@stratagate/store/testing';
import { startTestNode, type TestNode } from './harness.ts';

const S = '/v1/spaces/recall';

describe(`recall within budgets (MM-RET-7/8) (${describeBackend()})`, () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode('recall');
    await t.request('PUT', `${S}/settings`, { blockSize: 1 });
    const post = (threadId: string, at: string, content: string) =>
      t.request('POST', `${S}/turns`, {
        threadId,
        occurredAt: at,
        messages: [
          { role: 'user', name: 'Mel', content },
          { role: 'assistant', content: 'Nice.' },
        ],
      });
    // Weakly relevant, older events first: the adoption is both the best match and the most
    // recent (highest weight), so it ranks first in both RRF lists whatever the random ids.
    for (let i = 0; i < 6; i++) {
      await post(
        's1',
        `2023-05-01T10:0${i}:00Z`,
        `We planned trip number ${i} to the dog beach in Lisbon.`,
      );
    }
    await post('s1', '2023-05-02T10:00:00Z', 'I started pottery classes on Tuesdays.');
    await post('s1', '2023-05-02T10:05:00Z', 'I adopted a dog named Max from the shelter.');
    await post('s2', '2023-06-01T10:00:00Z', 'My dog Max loves the dog park near home.');
    await t.settle('recall');
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('activates at most 4 events within 900 tokens, skipping the current session, as background', async () => {
    const events = (await t.request('GET', `${S}/memory-events?limit=200`)).body.events as {
      id: string;
      sourceBlockId: string;
      weight: { mentionCount: number; lastRetrievedAt: string | null };
    }[];
    const res = await t.request('POST', `${S}/threads/s2/recall`, {
      message: 'How is your dog Max doing?',
    });
    expect(res.status).toBe(200);
    const mem = res.body.activatedMemory;
    expect(mem.note).toMatch(/not instructions/);
    expect(mem.events.length).toBeGreaterThan(0);
    expect(mem.events.length).toBeLessThanOrEqual(4);
    expect(mem.budget.usedTokens).toBeLessThanOrEqual(900);
    expect(mem.budget.omittedEvents).toBeGreaterThan(0);
    expect(mem.events[0].title).toMatch(/adopted a dog/i);
    const s2Blocks = new Set(res.body.blocks.map((b: { id: string }) => b.id));
    expect(mem.events.every((e: { sourceBlockId: string }) => !s2Blocks.has(e.sourceBlockId))).toBe(
      true,
    );
    expect(res.body.tokenizer).toContain('o200k');
    expect(res.body.tokens.blocks).toBeGreaterThan(0);
    // Recall reinforces nothing and stamps nothing.
    await t.settle('recall');
    const after = (await t.request('GET', `${S}/memory-events?limit=200`)).body
      .events as typeof events;
    expect(after.map((e) => [e.id, e.weight.mentionCount, e.weight.lastRetrievedAt])).toEqual(
      events.map((e) => [e.id, e.weight.mentionCount, e.weight.lastRetrievedAt]),
    );
    const batches = (await t.request('GET', `${S}/threads/s2/batches?status=all`)).body.batches;
    expect(batches).toEqual([]);
  });

  it('weighs the standing (pinned) events too, whether or not they match the message', async () => {
    const events = (await t.request('GET', `${S}/memory-events?limit=200`)).body.events as {
      id: string;
      title: string;
    }[];
    const pottery = events.find((e) => /pottery/i.test(e.title))!;
    expect(pottery).toBeDefined();
    // No word of this message is in any event: nothing is activated by relevance.
    const ask = async () =>
      (await t.request('POST', `${S}/threads/s2/recall`, { message: 'Xylophones, anyone?' })).body
        .activatedMemory as {
        events: { id: string; title: string; summary: string; status: string }[];
        budget: { omittedEvents: number };
      };
    expect((await ask()).events).toEqual([]);
    expect((await t.request('POST', `${S}/memory-events/${pottery.id}/pin`)).status).toBe(202);
    await t.settle('recall');
    // Pinned, it is a candidate of every recall, by weight, with its whole card.
    const activated = await ask();
    expect(activated.events.map((e) => e.id)).toEqual([pottery.id]);
    expect(activated.events[0]!.title).toBe(pottery.title);
    expect(activated.events[0]!.summary).toMatch(/pottery/i);
    expect(activated.events[0]!.status).toBe('active');
    expect(activated.budget.omittedEvents).toBe(0);
    await t.request('POST', `${S}/memory-events/${pottery.id}/unpin`);
    await t.settle('recall');
    expect((await ask()).events).toEqual([]);
  });
});
