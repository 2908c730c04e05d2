import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeBackend } from '@stratagate/store';
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
