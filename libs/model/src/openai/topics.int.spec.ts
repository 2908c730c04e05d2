import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidModelOutputError } from '../summary.schema.ts';
import type { TopicBuildInput } from '../topics.schema.ts';
import { reply, startFakeOpenAiServer, type FakeOpenAiServer } from './fake-openai-server.ts';
import { createOpenAiCompatibleProvider } from './openai-provider.ts';

/** MM-TOP-8 through the OpenAI-compatible client, against a fake server over real HTTP. */
let server: FakeOpenAiServer;
beforeEach(async () => {
  server = await startFakeOpenAiServer();
});
afterEach(async () => {
  await server.close();
});

const provider = (structuredRetries = 0) =>
  createOpenAiCompatibleProvider({
    baseUrl: server.baseUrl,
    model: 'test-model',
    sleep: () => Promise.resolve(),
    structuredRetries,
  });

const INPUT: TopicBuildInput = {
  events: [
    {
      id: 'evt_e2',
      title: 'X switched from npm to pnpm',
      summary: 'X switched to pnpm.',
      tags: ['pnpm'],
      catalogHints: [],
      participants: [],
      eventType: 'change',
      status: 'occurred',
      criticality: 'routine',
      supersedesEventIds: ['evt_e1'],
      relatedEventIds: [],
      entities: [{ name: 'X', type: 'project' }],
      cut: false,
    },
  ],
  candidates: [
    {
      topicId: 'topic_0123456789ab',
      title: 'Project X',
      description: 'The X project.',
      sections: [{ title: 'Dependencies and build', eventIds: ['evt_e1'] }],
      paragraphs: [{ kind: 'history', text: 'X used npm.' }],
      paragraphCount: 1,
      memberIds: ['evt_e1'],
      members: [{ id: 'evt_e1', title: 'X uses npm', tags: ['npm'], entities: [] }],
    },
  ],
};

const ANSWER = {
  topics: [
    {
      topicId: 'topic_0123456789ab',
      title: 'Project X',
      description: 'The X project.',
      sourceEventIds: ['evt_e2'],
      sections: [{ title: 'Dependencies and build', sourceEventIds: ['evt_e2'] }],
      paragraphs: [{ kind: 'change', text: 'X moved to pnpm.', sourceEventIds: ['evt_e2'] }],
    },
  ],
};

describe('topics prompt (OpenAI-compatible)', () => {
  it('sends the events and candidates as data and returns the validated proposal', async () => {
    server.enqueue(reply.json(ANSWER));
    const result = await provider().buildTopics!(INPUT);
    expect(result).toMatchObject({ output: ANSWER, promptVersion: 'topics@1' });
    const messages = (server.requests[0]?.body as { messages: { content: string }[] }).messages;
    expect(messages[0]!.content).toContain(
      'Versions, bugs, releases and progress are never chapters',
    );
    expect(messages[1]!.content).toContain('"topicId":"topic_0123456789ab"');
    expect(messages[1]!.content).toContain('"supersedes":["evt_e1"]');
  });

  it('asks again with the problem when an answer has the wrong shape, then accepts', async () => {
    server.enqueue(reply.json({ topics: [{ title: 'Project X', kind: 'chapter' }] }));
    server.enqueue(reply.json(ANSWER));
    const result = await provider(1).buildTopics!(INPUT);
    expect(result.output).toEqual(ANSWER);
    expect(server.requests).toHaveLength(2);
  });

  it('fails as invalid output once the retries are spent', async () => {
    server.enqueue(reply.json({ topics: [] }));
    await expect(provider().buildTopics!(INPUT)).rejects.toBeInstanceOf(InvalidModelOutputError);
  });
});
