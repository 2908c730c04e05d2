import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOfflineProvider, type ModelPort } from '@stratagate/model';
import { startTestNode, type TestNode } from '@stratagate/runtime/testing';
import { describeBackend } from '@stratagate/store/testing';

/*
 * A topic job whose attempts ran out (MM-TOP-8) shows as failed in the space's status, never
 * blocks event, graph or raw search (MM-TOP-11), and runs again when asked.
 */
const SPACE = 'topic_retry';

describe(`a failed topic job, and its retry (${describeBackend()})`, () => {
  let t: TestNode;
  let failing = true;
  let calls = 0;
  // The clock moves on by hand, so the job's back-off between attempts passes at once.
  let clock = Date.parse('2026-06-01T09:00:00Z');
  const offline = createOfflineProvider();
  const model: ModelPort = {
    ...offline,
    async buildTopics(input, options) {
      calls += 1;
      if (failing) throw new Error('the topic model is down');
      return offline.buildTopics!(input, options);
    },
  };
  // A space answers 404 until its first records are projected.
  const status = async () =>
    ((await t.request('GET', `/v1/spaces/${SPACE}/status`)).body.topicJobs ?? {
      status: 'unknown',
    }) as { status: string; attempts: number; lastError: string | null };
  async function until<T>(probe: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const v = await probe();
      if (done(v)) return v;
      if (Date.now() > deadline) throw new Error(`gave up waiting: ${JSON.stringify(v)}`);
      clock += 5 * 60_000;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  beforeAll(async () => {
    t = await startTestNode('topic_retry', {
      model,
      now: () => new Date(clock),
      config: { STRATAGATE_TOPIC_BUILDER: 'model' },
    });
    expect((await t.request('PUT', `/v1/spaces/${SPACE}/settings`, { blockSize: 1 })).status).toBe(
      200,
    );
    const turn = await t.request('POST', `/v1/spaces/${SPACE}/turns`, {
      threadId: 'kitchen',
      occurredAt: '2026-06-01T08:00:00Z',
      messages: [{ role: 'user', name: 'Ana', content: 'We renovate the kitchen in July.' }],
    });
    expect(turn.status, JSON.stringify(turn.body)).toBe(202);
  }, 180_000);
  afterAll(async () => {
    await t?.stop();
  });

  it('fails visibly after its attempts, while every search still answers', async () => {
    const failed = await until(status, (s) => s.status === 'failed' && s.attempts === 3);
    expect(failed.attempts).toBe(3);
    expect(failed.lastError).toContain('the topic model is down');
    expect(calls).toBe(3);
    const S = `/v1/spaces/${SPACE}/threads/kitchen`;
    const events = await t.request('POST', `${S}/search/events`, { query: 'kitchen' });
    expect(events.status).toBe(200);
    expect(events.body.hits.length).toBeGreaterThan(0);
    const raw = await t.request('POST', `${S}/search/raw`, { query: 'kitchen' });
    expect(raw.status).toBe(200);
    expect(raw.body.hits.length).toBeGreaterThan(0);
    expect((await t.request('POST', `${S}/search/graph`, { query: 'kitchen' })).status).toBe(200);
    // The event no chapter holds is listed as a fallback meanwhile.
    const listed = (await t.request('GET', `/v1/spaces/${SPACE}/topics`)).body.topics;
    expect(listed.map((x: { isFallback: boolean }) => x.isFallback)).toEqual([true]);
    // With its attempts spent the job waits for a person, however long.
    clock += 24 * 3_600_000;
    await new Promise((r) => setTimeout(r, 2_500));
    expect(calls).toBe(3);
  });

  it('runs again when asked, and builds the chapter', { timeout: 240_000 }, async () => {
    failing = false;
    const retry = await t.request('POST', `/v1/spaces/${SPACE}/topics/retry`);
    expect(retry.status, JSON.stringify(retry.body)).toBe(202);
    expect(retry.body).toMatchObject({ spaceId: SPACE });
    expect(retry.body.position).toBeGreaterThan(0);
    await until(status, (s) => s.status === 'idle');
    expect(calls).toBe(4);
    const listed = (await t.request('GET', `/v1/spaces/${SPACE}/topics`)).body.topics;
    expect(listed.map((x: { isFallback: boolean }) => x.isFallback)).toEqual([false]);
  });

  it('answers 404 for a space that does not exist, and writes nothing', async () => {
    const missing = await t.request('POST', `/v1/spaces/nowhere/topics/retry`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('space_not_found');
    expect(await t.node.log.spaceVersion({ tenantId: 'local', spaceId: 'nowhere' })).toBe(0);
  });
});
