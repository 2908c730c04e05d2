import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeOpenAiReply, type FakeOpenAiServer } from '@stratagate/model/testing';
import { describeBackend } from '@stratagate/store/testing';
import { startFakeModelNode, type TestNode } from './harness.ts';

const summary = fakeOpenAiReply.json({
  title: 'Trip planning',
  tags: ['trip', 'lisbon'],
  summary: 'Mel plans a trip to Lisbon.',
  keyPoints: ['Trip to Lisbon planned.', 'Flights not booked.', 'Budget discussed.'],
  shouldExtract: true,
});

async function waitFor<T>(
  probe: () => Promise<T>,
  done: (v: T) => boolean,
  ms = 60_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (done(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe(`model failures end in bounded retries and a visible failed job (${describeBackend()})`, () => {
  let t: TestNode;
  let fake: FakeOpenAiServer;
  beforeAll(async () => {
    ({ t, fake } = await startFakeModelNode('model_failures', 'trip', {
      // Long enough that a busy CI machine never times out a scripted reply by accident.
      timeoutMs: 1500,
      maxRetries: 1,
    }));
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('malformed JSON, schema-invalid JSON, 429, 500 and a hang fail the extraction three times; L3–L5 stay intact', async () => {
    // Summary succeeds; then each extraction attempt meets a different failure. Attempt 1:
    // malformed, then schema-invalid on the structured retry. Attempt 2: 429 then 500 (transient
    // retries exhausted). Attempt 3: a hang past the timeout, twice.
    fake.enqueue(
      summary,
      fakeOpenAiReply.text('{"events": [ this is not json'),
      fakeOpenAiReply.json({ events: [{ title: 'x' }] }),
      fakeOpenAiReply.status(429, { error: { message: 'slow down' } }),
      fakeOpenAiReply.status(500, { error: { message: 'boom' } }),
      fakeOpenAiReply.hang(),
      fakeOpenAiReply.hang(),
    );
    const posted = await t.request('POST', '/v1/spaces/trip/turns', {
      occurredAt: '2023-07-01T10:00:00Z',
      messages: [
        {
          role: 'user',
          name: 'Mel',
          content: 'We are going to Lisbon next month, flights not booked yet.',
        },
        { role: 'assistant', content: 'Sounds lovely.' },
      ],
    });
    const blockId = posted.body.sealedBlockId as string;
    const block = await waitFor(
      async () => (await t.request('GET', `/v1/spaces/trip/blocks/${blockId}`)).body,
      (b) => b.extractionStatus === 'failed' && b.extractionAttempts === 3,
    );
    expect(block.extractionStatus).toBe('failed');
    expect(block.extractionAttempts).toBe(3);
    expect(block.extractionNextRetryAt).toBeNull();
    expect(block.status).toBe('pending');
    expect(block.content).toContain('Lisbon');
    const status = (await t.request('GET', '/v1/spaces/trip/status')).body;
    expect(status.extractionJobs.failed).toBe(1);
    // The failed job is listed with what a retry needs.
    const failed = await t.request('GET', '/v1/spaces/trip/jobs/failed');
    expect(failed.status, JSON.stringify(failed.body)).toBe(200);
    expect(failed.body).toMatchObject({ spaceId: 'trip', offset: 0, nextOffset: null });
    expect(failed.body.jobs).toEqual([
      {
        blockId,
        threadId: 'default',
        turnRange: [1, 1],
        job: 'extraction',
        attempts: 3,
        nextRetryAt: null,
        lastError: expect.any(String),
      },
    ]);
    expect((await t.request('GET', '/v1/spaces/trip/jobs/failed?limit=101')).status).toBe(400);
    expect((await t.request('GET', '/v1/spaces/nowhere/jobs/failed')).status).toBe(404);
    expect(status.turnCounter).toBe(1);
    // 1 summary + 2 (attempt 1) + 2 (attempt 2) + 2 (attempt 3) model calls, and no more.
    await new Promise((r) => setTimeout(r, 500));
    expect(fake.requestCount).toBe(7);
  });

  it('a manual retry after the model recovers succeeds without rerunning the summary', async () => {
    const ctx = (await t.request('GET', '/v1/spaces/trip/threads/default/context')).body;
    const blockId = ctx.pendingBlocks[0].id as string;
    const before = fake.requestCount;
    fake.enqueue(
      fakeOpenAiReply.json({
        events: [
          {
            title: 'Mel plans a trip to Lisbon',
            summary: 'Mel plans to travel to Lisbon next month; flights are not booked yet.',
            tags: ['lisbon'],
            quotes: [],
            sourceMessageIds: [],
            scope: 'user',
            criticality: 'routine',
            temporal: { status: 'planned', participants: ['Mel'], eventType: 'plan' },
            relations: { supersedesEventIds: [], conflictsWithEventIds: [], relatedEventIds: [] },
            catalogHints: [],
          },
        ],
      }),
      fakeOpenAiReply.json({ nodes: [], edges: [] }),
    );
    const retry = await t.request('POST', `/v1/spaces/trip/blocks/${blockId}/retry`, {
      job: 'extraction',
    });
    expect(retry.status).toBe(202);
    await t.settle('trip');
    const block = (await t.request('GET', `/v1/spaces/trip/blocks/${blockId}`)).body;
    expect(block.status).toBe('ready');
    expect(block.extractionStatus).toBe('succeeded');
    const events = (await t.request('GET', '/v1/spaces/trip/memory-events')).body.events;
    expect(events.map((e: { title: string }) => e.title)).toEqual(['Mel plans a trip to Lisbon']);
    expect((await t.request('GET', '/v1/spaces/trip/jobs/failed')).body.jobs).toEqual([]);
    // Extraction and graph only: the summary was not asked for again.
    expect(fake.requestCount - before).toBe(2);
  });
});
