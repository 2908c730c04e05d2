import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { GraphProposal } from '../graph.schema.ts';
import { InvalidModelOutputError } from '../summary.schema.ts';
import { reply, startFakeOpenAiServer, type FakeOpenAiServer } from './fake-openai-server.ts';
import { GRAPH_INPUT, VALID_GRAPH_PROPOSAL } from './graph-test-inputs.ts';
import { createOpenAiCompatibleProvider } from './openai-provider.ts';

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

const provider = (responseFormat: 'json_object' | 'json_schema' = 'json_object') =>
  createOpenAiCompatibleProvider({
    baseUrl: server.baseUrl,
    model: 'test-model',
    responseFormat,
    sleep: () => Promise.resolve(),
  });
const sent = (i: number) => server.requests[i]?.body as SentBody;

describe('OpenAI-compatible provider: proposeGraph (MM-GRF)', () => {
  it('returns a valid proposal with defaults filled, provenance and usage', async () => {
    server.enqueue(
      reply.json(VALID_GRAPH_PROPOSAL, { prompt_tokens: 700, completion_tokens: 150 }),
    );
    const result = await provider().proposeGraph!(GRAPH_INPUT);

    expect(result).toMatchObject({
      provider: 'openai-compatible',
      model: 'test-model',
      promptVersion: 'graph-projection@1',
      usage: { inputTokens: 700, outputTokens: 150 },
    });
    expect(result.output).toEqual(GraphProposal.parse(VALID_GRAPH_PROPOSAL));
    expect(result.output.nodes[0]).toMatchObject({ aliases: [], tags: [], facts: [] });
    expect(result.output.nodes[2]?.state?.value).toBe('pending verification');
    expect(server.requestCount).toBe(1);

    const body = sent(0);
    expect(body).toMatchObject({ temperature: 0, response_format: { type: 'json_object' } });
    const user = body.messages[1]?.content ?? '';
    expect(user).toContain('"id":"evt_2"');
    expect(user).toContain('{"id":"node_x","name":"Project X","type":"project"');
    expect(user).toContain('{"from":"node_x","relation":"uses","to":"node_npm"}');
    expect(user).toContain('Allowed sourceEventIds: evt_2, evt_3');
  });

  it('corrects a schema-invalid answer with one call that names the problem', async () => {
    const bad = {
      ...VALID_GRAPH_PROPOSAL,
      nodes: [{ ...VALID_GRAPH_PROPOSAL.nodes[1], type: 'software' }],
      edges: [{ fromRef: 'node_x', relation: 'uses', sourceEventIds: ['evt_2'] }],
    };
    server.enqueue(
      reply.json(bad, { prompt_tokens: 700, completion_tokens: 90 }),
      reply.json(VALID_GRAPH_PROPOSAL, { prompt_tokens: 900, completion_tokens: 150 }),
    );
    const result = await provider().proposeGraph!(GRAPH_INPUT);

    expect(result.output.edges).toHaveLength(2);
    expect(result.usage).toEqual({ inputTokens: 1600, outputTokens: 240 });
    expect(server.requestCount).toBe(2);
    const [first, retry] = [sent(0).messages, sent(1).messages];
    expect(retry.slice(0, first.length)).toEqual(first);
    expect(retry[first.length]).toEqual({ role: 'assistant', content: JSON.stringify(bad) });
    const correction = retry.at(-1)?.content ?? '';
    expect(correction).toContain('nodes.0.type');
    expect(correction).toContain('edges.0.toRef');
  });

  it('fails with "invalid graph proposal" when the answer stays invalid', async () => {
    server.enqueue(reply.text('{"nodes": [{"ref": ""}]}'), reply.text('not json'));
    const error = await provider().proposeGraph!(GRAPH_INPUT).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(InvalidModelOutputError);
    expect((error as Error).message).toMatch(
      /^invalid graph proposal: the answer is not valid JSON/u,
    );
    expect((error as Error).message).toContain('2 calls, prompt graph-projection@1');
    expect(server.requestCount).toBe(2);
  });

  it('sends the proposal schema in json_schema mode', async () => {
    server.enqueue(reply.json(VALID_GRAPH_PROPOSAL));
    await provider('json_schema').proposeGraph!(GRAPH_INPUT);

    const { $schema: _dialect, ...schema } = z.toJSONSchema(GraphProposal, { io: 'input' });
    expect(sent(0).response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'graph-projection_1', schema, strict: false },
    });
  });
});
