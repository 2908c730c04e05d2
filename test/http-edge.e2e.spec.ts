import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeBackend } from '@stratagate/store/testing';
import { startTestNode, turn, type TestNode } from './harness.ts';
import { httpRequest, rawRequest, type RawAnswer } from './support/raw-http.ts';

interface OpenApiOperation {
  parameters?: { in: string; name: string; schema: { pattern?: string; enum?: string[] } }[];
  requestBody?: unknown;
  responses: Record<string, unknown>;
}

/** A secret a client sends where it must not (the query string); it must never come back. */
const SECRET = 'sg_leakcheck0000_QUERYSTRINGSECRETQUERYSTRINGSECRETQUERYSTR';

describe(`the HTTP edge over a real socket (${describeBackend()})`, () => {
  let t: TestNode;
  let port: number;
  const logLines: string[] = [];
  const send = (request: string | Buffer, timeoutMs?: number) =>
    rawRequest(port, request, timeoutMs ? { timeoutMs } : {});
  const error = (answer: RawAnswer) =>
    (
      JSON.parse(answer.body) as {
        error: {
          code: string;
          message: string;
          issues?: { in?: string; path: string; message: string }[];
        };
      }
    ).error;
  const head = () => t.node.log.headPosition();

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logLines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    t = await startTestNode('http_edge', {
      listen: true,
      logger: pino({ level: 'trace' }, sink),
      config: { STRATAGATE_REQUEST_TIMEOUT_MS: '1000' },
    });
    port = Number(new URL(t.node.url!).port);
    expect((await t.request('POST', '/v1/spaces/edge/turns', turn(1))).status).toBe(202);
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('answers a body that is not JSON, or not declared JSON, in the envelope with its place', async () => {
    const badJson = await send(
      httpRequest('POST', '/v1/spaces/edge/turns', { key: t.key, body: '{"messages": [' }),
    );
    expect([badJson.status, error(badJson).code]).toEqual([400, 'invalid_json']);
    expect(error(badJson).issues).toEqual([{ in: 'body', path: '/', message: 'not valid JSON' }]);

    const text = await send(
      httpRequest('POST', '/v1/spaces/edge/turns', {
        key: t.key,
        body: 'hello',
        contentType: 'text/plain',
      }),
    );
    expect([text.status, error(text).code]).toEqual([415, 'unsupported_media_type']);
    expect(error(text).issues![0]).toMatchObject({ in: 'headers', path: '/content-type' });
  });

  it('answers what Node refuses before routing (431, malformed HTTP) in the envelope', async () => {
    const big = await send(
      httpRequest('GET', `/v1/spaces/edge/status?api_key=${SECRET}`, {
        key: t.key,
        headers: { 'x-padding': 'p'.repeat(20_000) },
      }),
    );
    expect([big.status, error(big).code]).toEqual([431, 'headers_too_large']);
    expect(error(big).issues![0]).toMatchObject({ in: 'headers' });

    const malformed = await send(`GET /v1/spaces/edge/status?api_key=${SECRET} HTTX/9\r\n\r\n`);
    expect([malformed.status, error(malformed).code]).toEqual([400, 'bad_request']);
    for (const answer of [big, malformed]) {
      expect(answer.headers['content-type']).toMatch(/^application\/json/);
      expect(answer.body).not.toContain(SECRET);
    }
  });

  it('never echoes the URL: a bad percent-encoding, an overlong segment, 404 and 405', async () => {
    const answers = {
      badUrl: await send(httpRequest('GET', `/v1/spaces/%E0%A4%A/status?api_key=${SECRET}`)),
      long: await send(
        httpRequest('GET', `/v1/spaces/${'x'.repeat(2000)}/status?api_key=${SECRET}`, {
          key: t.key,
        }),
      ),
      missing: await send(httpRequest('GET', `/v1/nowhere?api_key=${SECRET}`, { key: t.key })),
      method: await send(
        httpRequest('DELETE', `/v1/spaces/edge/turns?api_key=${SECRET}`, { key: t.key }),
      ),
    };
    expect(
      Object.values(answers).map((a) => [a.status, error(a).code, error(a).issues?.[0]?.in]),
    ).toEqual([
      [400, 'invalid_request', 'url'],
      [414, 'uri_too_long', 'params'],
      [404, 'route_not_found', 'url'],
      [405, 'method_not_allowed', 'url'],
    ]);
    expect(answers.method.headers.allow).toBe('POST');
    for (const answer of Object.values(answers)) {
      expect(answer.body).not.toContain(SECRET);
      expect(answer.body).not.toContain('xxxxxxxx');
    }
  });

  it('serves every id the OpenAPI patterns allow, and refuses the others naming the parameter', async () => {
    const spaceId = `s${'p'.repeat(126)}:`;
    expect(spaceId).toHaveLength(128);
    const threadId = `t${'h'.repeat(198)}.`;
    const written = await t.request(
      'POST',
      `/v1/spaces/${spaceId}/turns`,
      turn(1, threadId, { turnId: 'long-ids-1' }),
    );
    expect(written.status).toBe(202);
    await t.settle(spaceId);
    const context = await t.request('GET', `/v1/spaces/${spaceId}/threads/${threadId}/context`);
    expect([context.status, context.body.openTail.turns]).toEqual([200, 1]);
    const closed = await t.request('POST', `/v1/spaces/${spaceId}/threads/${threadId}/close`);
    expect(closed.status).toBe(202);

    for (const [url, param] of [
      [`/v1/spaces/${spaceId}x/status`, '/spaceId'],
      [`/v1/spaces/${spaceId}/threads/${threadId}x/context`, '/threadId'],
      ['/v1/spaces/..%2F..%2Fetc/status', '/spaceId'],
      ['/v1/spaces/a%00b/status', '/spaceId'],
    ] as const) {
      const res = await t.request('GET', url);
      expect([res.status, res.body.error.code, url]).toEqual([400, 'invalid_request', url]);
      expect(res.body.error.issues[0]).toMatchObject({ in: 'params', path: param });
    }
  });

  it('documents the id patterns and the refusals of a body in the OpenAPI document', async () => {
    const doc = (await t.node.http!.inject({ method: 'GET', url: '/openapi.json' })).json();
    for (const [path, methods] of Object.entries<Record<string, OpenApiOperation>>(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        for (const param of (op.parameters ?? []).filter((p) => p.in === 'path')) {
          const { pattern, enum: values } = param.schema;
          expect(pattern ?? values, `${method} ${path} ${param.name}`).toBeDefined();
          if (param.name === 'spaceId') expect(pattern).toBe('^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$');
        }
        if (op.requestBody) {
          expect(Object.keys(op.responses), `${method} ${path}`).toEqual(
            expect.arrayContaining(['400', '413', '415']),
          );
        }
      }
    }
    const turnBody =
      doc.paths['/v1/spaces/{spaceId}/turns'].post.requestBody.content['application/json'].schema;
    expect(turnBody.properties.threadId.pattern).toBe('^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$');
  });

  it('refuses a NUL or a lone surrogate anywhere in a body or a query, naming the place, and stores nothing', async () => {
    const before = await head();
    const cases: [string, string, string, string][] = [
      [
        'POST',
        '/v1/spaces/edge/turns',
        '{"messages":[{"role":"user","content":"a\\u0000b"}]}',
        '/messages/0/content',
      ],
      [
        'POST',
        '/v1/spaces/edge/turns',
        '{"messages":[{"role":"user","content":"ok","toolCalls":[{"name":"x","arguments":{"k\\ud800":1}}]}]}',
        '/messages/0/toolCalls/0/arguments/k\ud800',
      ],
      ['POST', '/v1/spaces/edge/threads/t1/search/events', '{"query":"\\udc00 pnpm"}', '/query'],
    ];
    for (const [method, url, body, path] of cases) {
      const answer = await send(httpRequest(method, url, { key: t.key, body }));
      expect([answer.status, error(answer).code]).toEqual([400, 'invalid_request']);
      expect(error(answer).issues![0]).toMatchObject({ in: 'body', path });
    }
    const query = await t.request('GET', '/v1/spaces/edge/memory-events?status=%00');
    expect(query.status).toBe(400);
    expect(query.body.error.issues[0]).toMatchObject({ in: 'querystring', path: '/status' });
    expect(await head()).toBe(before);
  });

  it('refuses nesting past the documented depth before anything walks it, and stores nothing', async () => {
    const before = await head();
    for (const depth of [60, 10_000, 400_000]) {
      const args = `${'['.repeat(depth)}${']'.repeat(depth)}`;
      const body = `{"messages":[{"role":"assistant","content":"x","toolCalls":[{"name":"n","arguments":${args}}]}]}`;
      const answer = await send(httpRequest('POST', '/v1/spaces/edge/turns', { key: t.key, body }));
      expect([answer.status, error(answer).code, depth]).toEqual([400, 'invalid_request', depth]);
      expect(error(answer).issues![0]!.message).toMatch(/nested deeper than 64 levels/);
    }
    // 64 levels in all, the five of the turn's own shape included, are taken.
    const args = `${'['.repeat(59)}${']'.repeat(59)}`;
    const ok = await t.request('POST', '/v1/spaces/edge/turns', {
      ...turn(2),
      messages: [
        {
          role: 'assistant',
          content: 'x',
          toolCalls: [{ name: 'n', arguments: JSON.parse(args) }],
        },
      ],
    });
    expect(ok.status).toBe(202);
    expect(await head()).toBe(before + 1);
  });

  it('answers a request whose body never finishes 408 in the envelope and closes it', async () => {
    const partial = (i: number) =>
      Buffer.concat([
        httpRequest('POST', '/v1/spaces/edge/turns', {
          key: t.key,
          body: JSON.stringify(turn(100 + i)),
        }).subarray(0, -20),
      ]);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => send(partial(i), 10_000)),
    );
    for (const answer of answers) {
      expect([answer.status, error(answer).code]).toEqual([408, 'request_timeout']);
      expect(answer.closedAfterMs).toBeGreaterThanOrEqual(900);
      expect(answer.closedAfterMs).toBeLessThan(5_000);
    }
    // A connection that never sends a byte is closed as well.
    const silent = await send(Buffer.alloc(0), 10_000);
    expect(silent.closedAfterMs).toBeLessThan(5_000);
  });

  it('keeps query strings out of every log line', async () => {
    const urls = [
      `/v1/spaces/edge/status?api_key=${SECRET}`,
      `/v1/spaces/edge/memory-events?limit=1&api_key=${SECRET}`,
      `/v1/nowhere?api_key=${SECRET}`,
      `/v1/spaces/${'y'.repeat(2000)}/status?api_key=${SECRET}`,
      `/v1/spaces/%E0%A4%A/status?api_key=${SECRET}`,
    ];
    for (const url of urls) {
      await send(httpRequest('GET', url, { key: t.key }));
      await send(httpRequest('GET', url));
    }
    await send(`GET /v1/spaces/edge/status?api_key=${SECRET} HTTX/9\r\n\r\n`);
    // The request lines were logged, with the path and without the query string.
    const requests = logLines.filter((l) => l.includes('incoming request'));
    expect(requests.some((l) => l.includes('/v1/spaces/edge/status?[redacted]'))).toBe(true);
    expect(logLines.filter((l) => l.includes(SECRET))).toEqual([]);
  });
});
