import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeBackend } from '@stratagate/store/testing';
import { startTestNode, turn, type TestNode } from './harness.ts';

describe(`ingest and query API contract (${describeBackend()})`, () => {
  let t: TestNode;
  let keyB: string;
  beforeAll(async () => {
    t = await startTestNode('api');
    keyB = (await t.node.apiKeys.create('tenant-b', 'test')).key;
  });
  afterAll(async () => {
    await t?.stop();
  });

  const head = () => t.node.log.headPosition();

  it('refuses requests without a valid API key', async () => {
    const res = await t.node.http!.inject({ method: 'GET', url: '/v1/spaces/s1/status' });
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('unauthorized');
    const wrong = await t.request(
      'GET',
      '/v1/spaces/s1/status',
      undefined,
      'sg_000000000000_' + 'x'.repeat(43),
    );
    expect(wrong.status).toBe(401);
  });

  it('the same turnId twice is one record and the same answer; a different body is 409', async () => {
    const before = await head();
    const first = await t.request('POST', '/v1/spaces/s1/turns', turn(1));
    const second = await t.request('POST', '/v1/spaces/s1/turns', turn(1));
    expect(first.status).toBe(202);
    expect(second.status).toBe(202);
    expect(second.body).toEqual(first.body);
    expect(second.headers['idempotent-replayed']).toBe('true');
    const records = await t.node.log.readSpace({ tenantId: 'local', spaceId: 's1' }, 0, 100);
    expect(records.filter((r) => r.type === 'TurnRecorded')).toHaveLength(1);
    expect(await head()).toBe(Math.max(before, first.body.position));

    const changed = turn(1);
    changed.messages[0]!.content = 'something else entirely';
    const reused = await t.request('POST', '/v1/spaces/s1/turns', changed);
    expect(reused.status).toBe(409);
    expect(reused.body.error.code).toBe('turn_id_reused');
    expect(await head()).toBe(first.body.position);
  });

  it('a reused turnId with any other field is 409 and appends nothing; the same turn replays', async () => {
    const first = await t.request('POST', '/v1/spaces/s7/turns', turn(30));
    expect(first.status).toBe(202);
    const before = await head();
    const variants: Record<string, unknown>[] = [
      { ...turn(30), occurredAt: '2023-05-08T11:59:00Z' },
      { ...turn(30), threadId: 't2' },
      {
        ...turn(30),
        messages: [
          ...turn(30).messages.slice(0, 1),
          { ...turn(30).messages[1]!, toolCalls: [{ name: 'lookup', arguments: { q: 'x' } }] },
        ],
      },
    ];
    for (const variant of variants) {
      const res = await t.request('POST', '/v1/spaces/s7/turns', variant);
      expect([res.status, res.body.error?.code]).toEqual([409, 'turn_id_reused']);
    }
    const again = await t.request('POST', '/v1/spaces/s7/turns', turn(30));
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    expect(await head()).toBe(before);
  });

  it('keeps the caller offset of occurredAt', async () => {
    const res = await t.request('POST', '/v1/spaces/s1/turns', {
      ...turn(2),
      occurredAt: '2023-06-09T13:56:00+08:00',
    });
    const [stored] = await t.node.log.readSpace(
      { tenantId: 'local', spaceId: 's1' },
      res.body.spaceVersion - 1,
      1,
    );
    expect((stored!.data as { occurredAt: string }).occurredAt).toBe('2023-06-09T13:56:00+08:00');
  });

  it.each([
    ['no messages', { messages: [] }, '/messages'],
    ['unknown role', { messages: [{ role: 'robot', content: 'x' }] }, '/messages/0/role'],
    ['blank turnId', { turnId: '  ', messages: [{ role: 'user', content: 'x' }] }, '/turnId'],
    ['blank threadId', { threadId: '', messages: [{ role: 'user', content: 'x' }] }, '/threadId'],
    [
      'bad time',
      { occurredAt: 'yesterday', messages: [{ role: 'user', content: 'x' }] },
      '/occurredAt',
    ],
  ])('rejects %s with 400, field paths and nothing appended', async (_name, body, path) => {
    const before = await head();
    const res = await t.request('POST', '/v1/spaces/s1/turns', body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.issues.map((i: { path: string }) => i.path)).toContain(path);
    expect(await head()).toBe(before);
  });

  it('rejects a body over the size limit with 413 and appends nothing', async () => {
    const before = await head();
    const huge = { messages: [{ role: 'user', content: 'x'.repeat(3 * 1024 * 1024) }] };
    const res = await t.request('POST', '/v1/spaces/s1/turns', huge);
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
    expect(await head()).toBe(before);
  });

  /** The fields a 400 names: the keys an unknown-key issue lists, or the issue's path. */
  const named = (body: { error: { code: string; issues?: { path: string; message: string }[] } }) =>
    (body.error.issues ?? []).map((i) => `${i.path} ${i.message}`).join('; ');

  it('refuses unknown fields with a 400 naming them, and appends nothing', async () => {
    const before = await head();
    const search = await t.request('POST', '/v1/spaces/s1/threads/t1/search/events', {
      q: 'pnpm',
    });
    expect(search.status).toBe(400);
    expect(search.body.error.code).toBe('invalid_request');
    expect(named(search.body)).toMatch(/"q"/);

    const mem0 = await t.request('POST', '/v1/spaces/s1/turns', { ...turn(40), user_id: 'alice' });
    expect(mem0.status).toBe(400);
    expect(named(mem0.body)).toMatch(/"user_id"/);
    const nested = turn(41);
    (nested.messages[0] as Record<string, unknown>).user_id = 'alice';
    expect((await t.request('POST', '/v1/spaces/s1/turns', nested)).status).toBe(400);

    const query = await t.request('GET', '/v1/spaces/s1/memory-events?limit=5&sort=desc');
    expect(query.status).toBe(400);
    expect(named(query.body)).toMatch(/"sort"/);
    expect(await head()).toBe(before);
  });

  it('refuses an expand target outside the documented forms', async () => {
    const res = await t.request('POST', '/v1/spaces/s1/blocks/blk_x/expand', { target: 'huge' });
    expect(res.status).toBe(400);
    expect(named(res.body)).toMatch(/target/);
    // A documented form passes validation (and then finds no such block).
    for (const target of ['raw', 'next', '+1', 'L3', '3', 2.6, null]) {
      const ok = await t.request('POST', '/v1/spaces/s1/blocks/blk_x/expand', { target });
      expect([ok.status, target]).toEqual([404, target]);
    }
  });

  it('takes thread ids of the one id pattern only, so a thread that was written can be read and closed', async () => {
    for (const threadId of ['my thread', 'x/y', '../../etc/passwd', '']) {
      const res = await t.request('POST', '/v1/spaces/s1/turns', turn(50, 't1', { threadId }));
      expect([res.status, threadId]).toEqual([400, threadId]);
      expect(named(res.body)).toMatch(/threadId/);
    }
    const threadId = 'session-2026.12:a_b';
    const written = await t.request('POST', '/v1/spaces/s9/turns', turn(51, threadId));
    expect(written.status).toBe(202);
    const deadline = Date.now() + 30_000;
    let context = await t.request('GET', `/v1/spaces/s9/threads/${threadId}/context`);
    while (context.status !== 200 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      context = await t.request('GET', `/v1/spaces/s9/threads/${threadId}/context`);
    }
    expect(context.body.openTail.turns).toBe(1);
    const closed = await t.request('POST', `/v1/spaces/s9/threads/${threadId}/close`);
    expect([closed.status, closed.body.sealed]).toEqual([202, true]);
  });

  it('a turn without a threadId goes to the thread `default`, and says so', async () => {
    const { threadId: _omitted, ...body } = turn(60, 'unused');
    const res = await t.request('POST', '/v1/spaces/s10/turns', body);
    expect(res.status).toBe(202);
    expect(res.body.threadId).toBe('default');
  });

  it('rejects an invalid space id with 400', async () => {
    const res = await t.request('POST', '/v1/spaces/has%20space/turns', turn(9));
    expect(res.status).toBe(400);
  });

  it("confines every key to its tenant: B can neither read nor change A's space", async () => {
    await t.settle('s1');
    const asA = await t.request('GET', '/v1/spaces/s1/status');
    expect(asA.status).toBe(200);
    expect(asA.body.turnCounter).toBe(2);

    expect((await t.request('GET', '/v1/spaces/s1/status', undefined, keyB)).status).toBe(404);
    expect(
      (await t.request('GET', '/v1/spaces/s1/threads/t1/context', undefined, keyB)).status,
    ).toBe(404);
    // Nor search it: 404, and no evidence batch is opened anywhere.
    const before = await head();
    for (const kind of ['raw', 'events']) {
      const res = await t.request(
        'POST',
        `/v1/spaces/s1/threads/t1/search/${kind}`,
        { query: 'hello' },
        keyB,
      );
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('space_not_found');
    }
    expect(await head()).toBe(before);

    // B writing to "s1" writes to B's own s1; A's space is untouched.
    const b = await t.request('POST', '/v1/spaces/s1/turns', turn(1), keyB);
    expect(b.status).toBe(202);
    expect(b.body.spaceTurn).toBe(1);
    await t.settle('s1', keyB);
    expect((await t.request('GET', '/v1/spaces/s1/status')).body.turnCounter).toBe(2);
    const ctxB = await t.request('GET', '/v1/spaces/s1/threads/t1/context', undefined, keyB);
    expect(ctxB.body.openTail.turns).toBe(1);
    const ctxA = await t.request('GET', '/v1/spaces/s1/threads/t1/context');
    expect(ctxA.body.openTail.turns).toBe(2);
  });

  it('serves health, readiness and the OpenAPI document', async () => {
    const health = await t.node.http!.inject({ method: 'GET', url: '/healthz' });
    expect(health.statusCode).toBe(200);
    const ready = await t.node.http!.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    const doc = (await t.node.http!.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/v1/spaces/{spaceId}/turns',
        '/v1/spaces/{spaceId}/threads/{threadId}/context',
        '/v1/spaces/{spaceId}/blocks/{blockId}/expand',
      ]),
    );
  });
});
