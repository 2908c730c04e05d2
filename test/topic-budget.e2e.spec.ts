import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOfflineProvider, type ModelPort } from '@stratagate/model';
import { startTestNode, type TestNode } from '@stratagate/runtime/testing';
import { describeBackend } from '@stratagate/store/testing';

/*
 * MM-TOP-9: building topics over a space's history with a model shares an installation-wide
 * budget of 2 calls per 10 minutes; a space that keeps up (one batch or less outside its
 * chapters) is not budgeted, and a space waiting for the budget holds up no other.
 */
const PLACES = ['Lisbon', 'Porto', 'Madrid', 'Seville', 'Valencia', 'Bilbao', 'Granada'];

describe(`the model budget for topic history (${describeBackend()})`, () => {
  let t: TestNode;
  let clock = Date.parse('2026-06-01T09:00:00Z');
  const calls: string[] = [];
  const offline = createOfflineProvider();
  const model: ModelPort = {
    ...offline,
    async buildTopics(input, options) {
      calls.push(input.events.map((e) => e.id).join(','));
      return offline.buildTopics!(input, options);
    },
  };
  const status = async (space: string) =>
    (await t.request('GET', `/v1/spaces/${space}/status`)).body;
  async function until<T>(what: string, probe: () => Promise<T>, done: (v: T) => boolean) {
    const deadline = Date.now() + 180_000;
    for (;;) {
      const v = await probe();
      if (done(v)) return v;
      if (Date.now() > deadline) throw new Error(`${what}: gave up at ${JSON.stringify(v)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  const extracted = (s: {
    blocks?: { total: number; pending: number };
    extractionJobs?: { pending: number };
    graphJobs?: { pending: number };
    topicJobs?: { status: string };
  }) =>
    s.blocks !== undefined &&
    s.blocks.pending === 0 &&
    s.extractionJobs!.pending === 0 &&
    s.graphJobs!.pending === 0;

  beforeAll(async () => {
    t = await startTestNode('topic_budget', {
      model,
      now: () => new Date(clock),
      config: { STRATAGATE_TOPIC_BUILDER: 'model' },
    });
    for (const space of ['history', 'fresh']) {
      const res = await t.request('PUT', `/v1/spaces/${space}/settings`, { blockSize: 1 });
      expect(res.status).toBe(200);
    }
    // Turns posted faster than they are consolidated: topic work waits until every block is
    // done, so it meets the whole history at once.
    for (let i = 0; i < 42; i++) {
      const place = PLACES[i % PLACES.length]!;
      const res = await t.request('POST', `/v1/spaces/history/turns`, {
        threadId: `trip-${i}`,
        occurredAt: new Date(Date.parse('2026-05-01T09:00:00Z') + i * 3_600_000).toISOString(),
        messages: [
          { role: 'user', name: 'Ana', content: `I visited ${place} with Tom on trip ${i + 1}.` },
        ],
      });
      expect(res.status).toBe(202);
    }
  }, 300_000);
  afterAll(async () => {
    await t?.stop();
  });

  it(
    'spends two calls on a long history, then waits, while a new space goes on',
    { timeout: 400_000 },
    async () => {
      await until('the history extracted', () => status('history'), extracted);
      const events = (await t.request('GET', `/v1/spaces/history/memory-events?limit=100`)).body
        .events;
      // More than three batches of history: two calls cannot finish it.
      expect(events.length).toBeGreaterThan(36);
      await until(
        'two budgeted calls',
        async () => calls.length,
        (n) => n >= 2,
      );
      // The budget is spent: the history waits however long the consolidator keeps looking.
      await new Promise((r) => setTimeout(r, 6_000));
      expect(calls).toHaveLength(2);
      const waiting = await status('history');
      expect(waiting.topicJobs.status).toBe('due');
      expect(waiting.topicJobs.unassignedEvents).toBeGreaterThan(12);

      // A space that keeps up is not budgeted: its one event gets a chapter now.
      const res = await t.request('POST', `/v1/spaces/fresh/turns`, {
        threadId: 'one',
        occurredAt: '2026-06-01T08:00:00Z',
        messages: [
          { role: 'user', name: 'Ana', content: 'I visited Lisbon with Maria on the last trip.' },
        ],
      });
      expect(res.status).toBe(202);
      await until(
        'the new space to get its chapter',
        async () => (await t.request('GET', `/v1/spaces/fresh/topics`)).body.topics ?? [],
        (topics: { isFallback: boolean }[]) => topics.length > 0 && !topics[0]!.isFallback,
      );
      expect(calls).toHaveLength(3);
      expect((await status('history')).topicJobs.status).toBe('due');

      // Ten minutes later the budget frees and the history is built to the end.
      clock += 10 * 60_000;
      const done = await until(
        'the history built',
        () => status('history'),
        (h) => h.topicJobs.status === 'idle',
      );
      expect(done.topicJobs.unassignedEvents).toBe(0);
      expect(calls.length).toBeGreaterThan(3);
    },
  );
});
