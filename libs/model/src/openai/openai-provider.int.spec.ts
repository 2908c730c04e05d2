import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ExtractionOutput } from '../extraction.schema.ts';
import { BlockSummaryOutput, InvalidModelOutputError } from '../summary.schema.ts';
import type { OpenAiCompatibleConfig } from './config.ts';
import { reply, startFakeOpenAiServer, type FakeOpenAiServer } from './fake-openai-server.ts';
import { createOpenAiCompatibleProvider } from './openai-provider.ts';
import { EXTRACTION_INPUT, SUMMARY_INPUT, VALID_EXTRACTION, VALID_SUMMARY } from './test-inputs.ts';

interface SentBody {
  model: string;
  temperature: number;
  response_format: { type: string; json_schema?: { name: string; schema: unknown } };
  messages: { role: string; content: string }[];
}

let server: FakeOpenAiServer;
beforeEach(async () => {
  server = await startFakeOpenAiServer();
});
afterEach(async () => {
  await server.close();
});

const provider = (overrides: Partial<OpenAiCompatibleConfig> = {}) =>
  createOpenAiCompatibleProvider({
    baseUrl: server.baseUrl,
    model: 'test-model',
    sleep: () => Promise.resolve(),
    ...overrides,
  });
const sent = (i: number) => server.requests[i]?.body as SentBody;

describe('OpenAI-compatible provider: outputs', () => {
  it('summarises a block from a valid answer, with provenance and usage', async () => {
    server.enqueue(reply.json(VALID_SUMMARY, { prompt_tokens: 300, completion_tokens: 80 }));
    const result = await provider().summarizeBlock(SUMMARY_INPUT);

    expect(result).toEqual({
      output: VALID_SUMMARY,
      provider: 'openai-compatible',
      model: 'test-model',
      promptVersion: 'block-summary@1',
      usage: { inputTokens: 300, outputTokens: 80 },
    });
    expect(server.requestCount).toBe(1);
    expect(server.requests[0]?.path).toBe('/v1/chat/completions');
    const body = sent(0);
    expect(body).toMatchObject({
      model: 'test-model',
      temperature: 0,
      response_format: { type: 'json_object' },
    });
    expect(body.messages.map((m) => m.role)).toEqual(['system', 'user']);
    const user = body.messages[1]?.content ?? '';
    expect(user).toContain(
      '<message id="msg_1" role="user" name="Dana" at="2024-05-06T09:00:00Z">',
    );
    expect(user).toContain('Project X uses npm for its monorepo.');
  });

  it('accepts JSON wrapped in ```json fences', async () => {
    server.enqueue(reply.text('```json\n' + JSON.stringify(VALID_SUMMARY) + '\n```'));
    const result = await provider().summarizeBlock(SUMMARY_INPUT);
    expect(result.output.title).toBe(VALID_SUMMARY.title);
    expect(result.usage).toBeUndefined();
    expect(server.requestCount).toBe(1);
  });

  it('extracts memory events from a valid answer, filling schema defaults', async () => {
    server.enqueue(reply.json(VALID_EXTRACTION, { prompt_tokens: 900, completion_tokens: 200 }));
    const result = await provider().extractMemoryEvents!(EXTRACTION_INPUT);

    expect(result.provider).toBe('openai-compatible');
    expect(result.model).toBe('test-model');
    expect(result.promptVersion).toBe('memory-events@1');
    expect(result.usage).toEqual({ inputTokens: 900, outputTokens: 200 });
    expect(result.output.events).toHaveLength(2);
    expect(result.output.events[0]?.relations.supersedesEventIds).toEqual(['evt_npm']);
    expect(result.output.events[1]?.temporal).toMatchObject({
      status: 'planned',
      happenedStart: '2024-05-13',
      participants: [],
    });
    expect(result.output.events[1]?.criticality).toBe('routine');
    const user = sent(0).messages[1]?.content ?? '';
    expect(user).toContain('"id":"evt_npm"');
    expect(user).toContain('Allowed sourceMessageIds: msg_1, msg_2, msg_3');
  });
});

describe('OpenAI-compatible provider: structured retry', () => {
  it('repairs malformed JSON with one corrective call that says what was wrong', async () => {
    server.enqueue(
      reply.text('{"title": "Project X", "tags": [', { prompt_tokens: 300, completion_tokens: 10 }),
      reply.json(VALID_SUMMARY, { prompt_tokens: 350, completion_tokens: 80 }),
    );
    const result = await provider().summarizeBlock(SUMMARY_INPUT);

    expect(result.output).toEqual(VALID_SUMMARY);
    expect(result.usage).toEqual({ inputTokens: 650, outputTokens: 90 });
    expect(server.requestCount).toBe(2);
    const [first, retry] = [sent(0).messages, sent(1).messages];
    expect(retry.slice(0, first.length)).toEqual(first);
    expect(retry[first.length]).toEqual({
      role: 'assistant',
      content: '{"title": "Project X", "tags": [',
    });
    const correction = retry[first.length + 1];
    expect(correction?.role).toBe('user');
    expect(correction?.content).toMatch(/not valid JSON \(.+\)/u);
    expect(correction?.content).toContain('corrected JSON object only');
  });

  it('fails a summary with "invalid L0-L2 layers" after two schema-invalid answers', async () => {
    const bad = { ...VALID_SUMMARY, title: '   ', shouldExtract: 'yes' };
    server.enqueue(reply.json(bad), reply.json(bad));
    const error = await provider()
      .summarizeBlock(SUMMARY_INPUT)
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(InvalidModelOutputError);
    expect((error as Error).message).toMatch(/^invalid L0-L2 layers: /u);
    expect((error as Error).message).toContain('title: title is blank');
    expect(server.requestCount).toBe(2);
    const correction = sent(1).messages.at(-1)?.content ?? '';
    expect(correction).toContain('title: title is blank');
    expect(correction).toContain('shouldExtract:');
  });

  it('fails extraction with "invalid extraction output" when the scope stays invalid (MM-EVT-12)', async () => {
    const event = VALID_EXTRACTION.events[0];
    const bad = { events: [{ ...event, scope: 'team' }] };
    server.enqueue(reply.json(bad), reply.json(bad));
    const error = await provider().extractMemoryEvents!(EXTRACTION_INPUT).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(InvalidModelOutputError);
    expect((error as Error).message).toMatch(/^invalid extraction output: /u);
    expect((error as Error).message).toContain('events.0.scope');
    expect(sent(1).messages.at(-1)?.content).toContain('events.0.scope');
    expect(server.requestCount).toBe(2);
  });

  it('makes as many corrective calls as configured, and no more', async () => {
    server.enqueue(reply.text('nope'), reply.text('still no'), reply.text('no'), reply.text('x'));
    await expect(provider({ structuredRetries: 0 }).summarizeBlock(SUMMARY_INPUT)).rejects.toThrow(
      /^invalid L0-L2 layers: .*1 call/u,
    );
    expect(server.requestCount).toBe(1);
    await expect(provider({ structuredRetries: 2 }).summarizeBlock(SUMMARY_INPUT)).rejects.toThrow(
      /^invalid L0-L2 layers: .*3 calls/u,
    );
    expect(server.requestCount).toBe(4);
  });

  it('tells the model when its answer was cut off at the token limit', async () => {
    server.enqueue(
      { kind: 'completion', content: '{"title": "Pro', finishReason: 'length' },
      reply.json(VALID_SUMMARY),
    );
    await provider().summarizeBlock(SUMMARY_INPUT);
    expect(sent(1).messages.at(-1)?.content).toContain('cut off at the output token limit');
  });
});

describe('OpenAI-compatible provider: request shape', () => {
  it('sends the JSON schema of the output in json_schema mode', async () => {
    server.enqueue(reply.json(VALID_SUMMARY), reply.json(VALID_EXTRACTION));
    const model = provider({ responseFormat: 'json_schema' });
    await model.summarizeBlock(SUMMARY_INPUT);
    await model.extractMemoryEvents!(EXTRACTION_INPUT);

    const { $schema: _a, ...summarySchema } = z.toJSONSchema(BlockSummaryOutput, { io: 'input' });
    const { $schema: _b, ...eventsSchema } = z.toJSONSchema(ExtractionOutput, { io: 'input' });
    expect(sent(0).response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'block-summary_1', schema: summarySchema, strict: false },
    });
    expect(sent(1).response_format.json_schema?.schema).toEqual(eventsSchema);
    expect(summarySchema).toMatchObject({ required: expect.arrayContaining(['title']) });
  });

  it('sends Authorization only when an API key is configured', async () => {
    server.enqueue(reply.json(VALID_SUMMARY), reply.json(VALID_SUMMARY));
    await provider({ apiKey: 'sk-test-secret-123' }).summarizeBlock(SUMMARY_INPUT);
    await provider().summarizeBlock(SUMMARY_INPUT);

    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-test-secret-123');
    expect(server.requests[1]?.headers).not.toHaveProperty('authorization');
  });

  it('normalises a trailing slash on the base URL', async () => {
    server.enqueue(reply.json(VALID_SUMMARY));
    await provider({ baseUrl: `${server.baseUrl}/` }).summarizeBlock(SUMMARY_INPUT);
    expect(server.requests[0]?.path).toBe('/v1/chat/completions');
  });

  it('rejects a configuration without a usable base URL or model', () => {
    expect(() => provider({ baseUrl: 'localhost:11434' })).toThrow(/baseUrl/u);
    expect(() => provider({ model: ' ' })).toThrow(/model name/u);
    expect(() => provider({ maxRetries: -1 })).toThrow(/maxRetries/u);
  });
});
