import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidModelOutputError } from '../summary.schema.ts';
import { reply, startFakeOpenAiServer, type FakeOpenAiServer } from './fake-openai-server.ts';
import { createOpenAiCompatibleProvider } from './openai-provider.ts';

/** MM-PRO-6 through the OpenAI-compatible client, against a fake server over real HTTP. */
let server: FakeOpenAiServer;
beforeEach(async () => {
  server = await startFakeOpenAiServer();
});
afterEach(async () => {
  await server.close();
});

const provider = () =>
  createOpenAiCompatibleProvider({
    baseUrl: server.baseUrl,
    model: 'test-model',
    sleep: () => Promise.resolve(),
    structuredRetries: 0,
  });
const INPUT = {
  fields: [
    { field: 'standingInstructions', value: 'Cite sources. Always cite sources.', limit: 1000 },
  ],
};

describe('profile compression prompt (OpenAI-compatible)', () => {
  it('sends each field with its limit as data, and returns the validated fields', async () => {
    const output = { fields: [{ field: 'standingInstructions', value: 'Always cite sources.' }] };
    server.enqueue(reply.json(output));
    const result = await provider().compressProfile!(INPUT);
    expect(result).toMatchObject({
      output,
      provider: 'openai-compatible',
      promptVersion: 'profile-compression@1',
    });
    const messages = (server.requests[0]?.body as { messages: { content: string }[] }).messages;
    expect(messages[0]!.content).toContain('Add nothing');
    expect(messages[1]!.content).toContain(
      '<field name="standingInstructions" limit="1000">\nCite sources. Always cite sources.\n</field>',
    );
  });

  it('an answer in another shape fails as invalid output', async () => {
    server.enqueue(reply.json({ standingInstructions: 'Always cite sources.' }));
    await expect(provider().compressProfile!(INPUT)).rejects.toBeInstanceOf(
      InvalidModelOutputError,
    );
  });
});
