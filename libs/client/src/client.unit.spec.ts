import { describe, expect, it } from 'vitest';
import { StrataGate } from './client.ts';
import { ConnectionError, ServerError, UnavailableError } from './errors.ts';

/*
 * The call path without a server: what the client sends, and when it sends again. The fetch
 * is the client's own injection point; each answer below is one the API gives.
 */

const envelope = (status: number, code: string) =>
  new Response(JSON.stringify({ error: { code, message: code } }), {
    status,
    headers: { 'content-type': 'application/json' },
  });
const ok = (body: unknown) =>
  new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });

function client(answers: (() => Response | Promise<Response>)[]) {
  const sent: { method: string; url: string; body: string; headers: Headers }[] = [];
  const sg = new StrataGate({
    baseUrl: 'http://api.test/',
    apiKey: 'sg_key',
    retryDelayMs: 0,
    newId: () => `id-${sent.length}`,
    fetch: async (input, init) => {
      const request = new Request(input, init);
      sent.push({
        method: request.method,
        url: request.url,
        body: await request.text(),
        headers: request.headers,
      });
      const next = answers.shift();
      if (!next) throw new Error('no more answers');
      return next();
    },
  });
  return { sg, sent };
}

describe('StrataGate.call', () => {
  it('puts path and query parameters in the URL, the key in the header, the body as JSON', async () => {
    const { sg, sent } = client([() => ok({ events: [] })]);
    await sg.call('listMemoryEvents', { spaceId: 'project:a b', limit: 5 });
    expect(sent[0]).toMatchObject({
      method: 'GET',
      url: 'http://api.test/v1/spaces/project%3Aa%20b/memory-events?limit=5',
    });
    expect(sent[0]!.headers.get('authorization')).toBe('Bearer sg_key');
  });

  it('fills a left-out idempotency key once and keeps it when it sends again after a 503', async () => {
    const { sg, sent } = client([() => envelope(503, 'projection_lagging'), () => ok({})]);
    await sg.call('recordTurn', {
      spaceId: 's',
      body: { messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(sent).toHaveLength(2);
    const keys = sent.map((s) => JSON.parse(s.body).turnId);
    expect(keys).toEqual(['id-0', 'id-0']);
    expect(sent[0]!.headers.get('content-type')).toBe('application/json');
  });

  it('sends a keyless write again after a refusal that did nothing, never after a lost answer', async () => {
    const refused = client([() => envelope(409, 'version_conflict'), () => ok({ batchId: 'b' })]);
    await refused.sg.call('searchEvents', { spaceId: 's', threadId: 't', body: { query: 'x' } });
    expect(refused.sent).toHaveLength(2);

    const lost = client([
      () => {
        throw new TypeError('socket hang up');
      },
    ]);
    const error = await lost.sg
      .call('searchEvents', { spaceId: 's', threadId: 't', body: { query: 'x' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(lost.sent).toHaveLength(1);
  });

  it('gives up after its retries with the last typed error', async () => {
    const { sg, sent } = client([1, 2, 3].map(() => () => envelope(503, 'shutting_down')));
    const error = await sg.call('listSpaces').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error).toMatchObject({ code: 'shutting_down', operationId: 'listSpaces' });
    expect(sent).toHaveLength(3);
  });

  it('reads a file answer as text and sends a file body as it is, with its media type', async () => {
    const file = '{"line":1}\n{"line":2}\n';
    const { sg, sent } = client([
      () => new Response(file, { headers: { 'content-type': 'application/x-ndjson' } }),
      () => ok({ records: 2 }),
    ]);
    expect(await sg.call('exportSpace', { spaceId: 's' })).toBe(file);
    await sg.call('importSpace', { spaceId: 'copy', body: file });
    expect(sent[1]!.body).toBe(file);
    expect(sent[1]!.headers.get('content-type')).toBe('application/x-ndjson');
  });

  it('reports an answer it cannot read as unexpected, and a parameter it does not know', async () => {
    const { sg } = client([() => new Response('<html>', { status: 200 })]);
    const error = await sg.call('listSpaces').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect(error).toMatchObject({ code: 'unexpected_response' });
    await expect(sg.call('listSpaces', { nope: 1 } as never)).rejects.toThrow(
      /takes no parameter 'nope'/,
    );
  });
});
