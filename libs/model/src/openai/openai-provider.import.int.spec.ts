import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ImportDeciderInput } from '../model-port.ts';
import { reply, startFakeOpenAiServer, type FakeOpenAiServer } from './fake-openai-server.ts';
import { createOpenAiCompatibleProvider } from './openai-provider.ts';

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
  });
const messages = (i: number) =>
  (server.requests[i]?.body as { messages: { role: string; content: string }[] }).messages;

const INPUT: ImportDeciderInput = {
  candidate: {
    title: 'Project X uses pnpm',
    summary: 'Project X switched from npm to pnpm.',
    tags: ['project'],
    memoryKind: 'fact',
    category: 'project',
    originalText: 'last spring',
  },
  matches: [
    { id: 'evt_npm', title: 'Project X uses npm', summary: 'Installs with npm.', status: 'active' },
  ],
};

describe('OpenAI-compatible provider: external memory import', () => {
  it('decides an import candidate, showing the matches as data and recording the prompt version', async () => {
    server.enqueue(
      reply.json({
        action: 'SUPERSEDE',
        existingEventIds: ['evt_npm'],
        reason: 'pnpm replaced npm',
        confidence: 0.92,
      }),
    );
    const result = await provider().decideImport!(INPUT);
    expect(result).toMatchObject({
      output: { action: 'SUPERSEDE', existingEventIds: ['evt_npm'], confidence: 0.92 },
      provider: 'openai-compatible',
      model: 'test-model',
      promptVersion: 'import-decider@1',
    });
    const [system, user] = messages(0);
    expect(system?.content).toContain('JSON');
    expect(user?.content).toContain('<memory id="evt_npm" status="active">');
    expect(user?.content).toContain('time as written: last spring');
    expect(user?.content).toContain('<imported>\nProject X uses pnpm');
  });

  it('asks again when the decision is not one of the five actions, then fails with a stable prefix', async () => {
    server.enqueue(reply.json({ action: 'DELETE', existingEventIds: [], reason: 'x' }));
    server.enqueue(reply.json({ action: 'REPLACE', existingEventIds: [], reason: 'x' }));
    server.enqueue(reply.json({ action: 'DROP', existingEventIds: [], reason: 'x' }));
    await expect(provider().decideImport!(INPUT)).rejects.toThrow(/^invalid import decision: /u);
    expect(server.requests.length).toBeGreaterThanOrEqual(2);
    expect(messages(1).at(-1)?.content).toContain('action');
  });

  it('recovers an export that is not JSON into the v2 format', async () => {
    const repaired = {
      format: 'stratagate.external-memory.v2',
      candidates: [{ title: 'Likes tea', summary: 'The user likes green tea.' }],
    };
    server.enqueue(reply.json(repaired));
    const result = await provider().recoverExternalMemory!({ text: 'title: Likes tea, ...' });
    expect(result.output).toEqual(repaired);
    expect(result.promptVersion).toBe('external-memory-recovery@1');
    expect(messages(0)[1]?.content).toContain('<export>\ntitle: Likes tea, ...\n</export>');
  });
});
