import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ModelError } from '../model-port.ts';
import type { OpenAiCompatibleConfig } from './config.ts';
import { reply, startFakeOpenAiServer, type FakeOpenAiServer } from './fake-openai-server.ts';
import { createOpenAiCompatibleProvider } from './openai-provider.ts';
import { SUMMARY_INPUT, VALID_SUMMARY } from './test-inputs.ts';

/** Transient vs permanent failures, timeouts and aborts, all over real HTTP. */

const SECRET = 'sk-live-very-secret-key-0123456789';
let server: FakeOpenAiServer;
let sleeps: number[];
beforeEach(async () => {
  server = await startFakeOpenAiServer();
  sleeps = [];
});
afterEach(async () => {
  await server.close();
});

const provider = (overrides: Partial<OpenAiCompatibleConfig> = {}) =>
  createOpenAiCompatibleProvider({
    baseUrl: server.baseUrl,
    model: 'test-model',
    apiKey: SECRET,
    sleep: (ms) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
    ...overrides,
  });

async function failure(promise: Promise<unknown>): Promise<ModelError> {
  const error = await promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ModelError);
  expect((error as Error).message).not.toContain(SECRET);
  return error as ModelError;
}

describe('transient failures are retried with backoff', () => {
  it('honours Retry-After on 429', async () => {
    server.enqueue(reply.status(429, undefined, { 'retry-after': '7' }), reply.json(VALID_SUMMARY));
    const result = await provider().summarizeBlock(SUMMARY_INPUT);
    expect(result.output.title).toBe(VALID_SUMMARY.title);
    expect(sleeps).toEqual([7000]);
    expect(server.requestCount).toBe(2);
  });

  it('bounds a huge Retry-After, and backs off exponentially without one', async () => {
    server.enqueue(
      reply.status(429, undefined, { 'retry-after': '86400' }),
      reply.status(429),
      reply.json(VALID_SUMMARY),
    );
    await provider().summarizeBlock(SUMMARY_INPUT);
    expect(sleeps).toEqual([60_000, 2000]);
  });

  it('retries 500, 500 and then succeeds', async () => {
    server.enqueue(reply.status(500), reply.status(503), reply.json(VALID_SUMMARY));
    const result = await provider().summarizeBlock(SUMMARY_INPUT);
    expect(result.output.title).toBe(VALID_SUMMARY.title);
    expect(sleeps).toEqual([1000, 2000]);
    expect(server.requestCount).toBe(3);
  });

  it('gives up after maxRetries + 1 attempts with a transient ModelError', async () => {
    for (let i = 0; i < 5; i += 1) server.enqueue(reply.status(500, { error: `echo ${SECRET}` }));
    const error = await failure(provider().summarizeBlock(SUMMARY_INPUT));
    expect(error.transient).toBe(true);
    expect(error.code).toBe('http_500');
    expect(error.message).toMatch(/^model request failed after 4 attempts: HTTP 500/u);
    expect(error.message).toContain('[redacted]');
    expect(server.requestCount).toBe(4);
    expect(sleeps).toEqual([1000, 2000, 4000]);
  });

  it('retries a dropped connection as a network error', async () => {
    server.enqueue(reply.drop(), reply.json(VALID_SUMMARY));
    await provider().summarizeBlock(SUMMARY_INPUT);
    expect(server.requestCount).toBe(2);
    expect(sleeps).toEqual([1000]);
  });

  it('reports an unreachable server as a transient network error', async () => {
    const url = server.baseUrl;
    await server.close();
    const error = await failure(
      provider({ baseUrl: url, maxRetries: 1 }).summarizeBlock(SUMMARY_INPUT),
    );
    expect(error).toMatchObject({ code: 'network', transient: true });
    expect(error.message).toMatch(/after 2 attempts: network error: fetch failed: .*ECONNREFUSED/u);
    server = await startFakeOpenAiServer();
  });
});

describe('timeouts', () => {
  it('times out a hanging request and retries it', async () => {
    server.enqueue(reply.hang(), reply.json(VALID_SUMMARY));
    const result = await provider({ timeoutMs: 200 }).summarizeBlock(SUMMARY_INPUT);
    expect(result.output.title).toBe(VALID_SUMMARY.title);
    expect(server.requestCount).toBe(2);
  });

  it('keeps the per-call timeout when the caller passes its own signal', async () => {
    server.enqueue(reply.hang(), reply.json(VALID_SUMMARY));
    const caller = new AbortController();
    const result = await provider({ timeoutMs: 200 }).summarizeBlock(SUMMARY_INPUT, {
      signal: caller.signal,
    });
    expect(result.output.title).toBe(VALID_SUMMARY.title);
    expect(server.requestCount).toBe(2);
    expect(sleeps).toEqual([1000]);
  });

  it('stops after the bounded number of timed-out attempts', async () => {
    server.enqueue(reply.hang(), reply.hang(), reply.json(VALID_SUMMARY));
    const started = Date.now();
    const error = await failure(
      provider({ timeoutMs: 200, maxRetries: 1 }).summarizeBlock(SUMMARY_INPUT),
    );
    expect(error).toMatchObject({ code: 'timeout', transient: true });
    expect(error.message).toBe('model request failed after 2 attempts: timed out after 200 ms');
    expect(server.requestCount).toBe(2);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe('failures that are not retried', () => {
  it('fails at once on 401, non-transient, without leaking the key', async () => {
    server.enqueue(
      reply.status(401, { error: { message: `Incorrect API key provided: ${SECRET}` } }),
      reply.json(VALID_SUMMARY),
    );
    const error = await failure(provider().summarizeBlock(SUMMARY_INPUT));
    expect(error).toMatchObject({ code: 'http_401', transient: false });
    expect(error.message).toMatch(/^model request rejected: HTTP 401/u);
    expect(error.message).toContain('Incorrect API key provided: [redacted]');
    expect(server.requestCount).toBe(1);
    expect(sleeps).toEqual([]);
  });

  it('points at the base URL on 404', async () => {
    server.enqueue(reply.status(404, 'Not Found'));
    const error = await failure(provider().summarizeBlock(SUMMARY_INPUT));
    expect(error).toMatchObject({ code: 'http_404', transient: false });
    expect(error.message).toContain('ends in the API version');
  });

  it('does not retry when the caller aborts mid-request', async () => {
    server.enqueue(reply.hang(), reply.json(VALID_SUMMARY));
    const controller = new AbortController();
    const call = provider().summarizeBlock(SUMMARY_INPUT, { signal: controller.signal });
    await server.waitForRequests(1);
    controller.abort();
    const error = await failure(call);
    expect(error).toMatchObject({ code: 'aborted', transient: true });
    expect(server.requestCount).toBe(1);
    expect(sleeps).toEqual([]);
  });

  it('makes no request for an already aborted signal, and reports a caller deadline as timeout', async () => {
    const error = await failure(
      provider().summarizeBlock(SUMMARY_INPUT, { signal: AbortSignal.abort() }),
    );
    expect(error.code).toBe('aborted');
    expect(server.requestCount).toBe(0);

    server.enqueue(reply.hang());
    const late = await failure(
      provider().summarizeBlock(SUMMARY_INPUT, { signal: AbortSignal.timeout(100) }),
    );
    expect(late.code).toBe('timeout');
    expect(server.requestCount).toBe(1);
  });

  it('stops waiting in the backoff when the caller aborts', async () => {
    server.enqueue(reply.status(500), reply.json(VALID_SUMMARY));
    const controller = new AbortController();
    const started = Date.now();
    const call = createOpenAiCompatibleProvider({
      baseUrl: server.baseUrl,
      model: 'test-model',
    }).summarizeBlock(SUMMARY_INPUT, { signal: controller.signal });
    await server.waitForRequests(1);
    setTimeout(() => controller.abort(), 50);
    const error = await failure(call);
    expect(error.code).toBe('aborted');
    expect(Date.now() - started).toBeLessThan(700);
    expect(server.requestCount).toBe(1);
  });
});
