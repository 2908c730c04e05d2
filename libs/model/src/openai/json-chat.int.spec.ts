import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { reply, startFakeOpenAiServer, type FakeOpenAiServer } from './fake-openai-server.ts';
import { createJsonChat, JsonChatOutputError } from './json-chat.ts';

let server: FakeOpenAiServer;
beforeEach(async () => {
  server = await startFakeOpenAiServer();
});
afterEach(async () => {
  await server.close();
});

const Verdict = z.object({ verdict: z.enum(['CORRECT', 'WRONG']), reason: z.string() });
const messages = [
  { role: 'system' as const, content: 'grade' },
  { role: 'user' as const, content: 'q' },
];

describe('JSON chat call over the OpenAI-compatible transport', () => {
  it('validates the answer and reports usage per call', async () => {
    server.enqueue(
      reply.json(
        { verdict: 'CORRECT', reason: 'same date' },
        { prompt_tokens: 40, completion_tokens: 7 },
      ),
    );
    const chat = createJsonChat({ baseUrl: server.baseUrl, model: 'judge-model' });
    const result = await chat.complete(messages, Verdict, { name: 'judge' });
    expect(result).toEqual({
      value: { verdict: 'CORRECT', reason: 'same date' },
      usage: { inputTokens: 40, outputTokens: 7 },
      calls: 1,
      callsWithoutUsage: 0,
    });
    expect(server.requests[0]?.body).toMatchObject({
      model: 'judge-model',
      temperature: 0,
      response_format: { type: 'json_object' },
      messages,
    });
  });

  it('sends a json_schema response format when configured', async () => {
    server.enqueue(reply.json({ verdict: 'WRONG', reason: 'no' }));
    const chat = createJsonChat({
      baseUrl: server.baseUrl,
      model: 'm',
      responseFormat: 'json_schema',
    });
    const result = await chat.complete(messages, Verdict, { name: 'locomo-judge@1' });
    expect(result.callsWithoutUsage).toBe(1);
    const format = (server.requests[0]?.body as { response_format: Record<string, unknown> })
      .response_format;
    expect(format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'locomo-judge_1', strict: false },
    });
  });

  it('retries invalid output once with the problem, then fails with the summed cost', async () => {
    server.enqueue(
      reply.json({ verdict: 'maybe' }, { prompt_tokens: 10, completion_tokens: 2 }),
      reply.json({ verdict: 'maybe' }, { prompt_tokens: 12, completion_tokens: 2 }),
    );
    const chat = createJsonChat({ baseUrl: server.baseUrl, model: 'm' });
    const error = await chat.complete(messages, Verdict, { name: 'judge' }).catch((e) => e);
    expect(error).toBeInstanceOf(JsonChatOutputError);
    expect((error as Error).message).toMatch(/^invalid judge output: .*verdict/u);
    expect((error as JsonChatOutputError).cost).toEqual({
      usage: { inputTokens: 22, outputTokens: 4 },
      calls: 2,
      callsWithoutUsage: 0,
    });
    const retry = (server.requests[1]?.body as { messages: { content: string }[] }).messages;
    expect(retry.at(-1)?.content).toContain('verdict');
  });
});
