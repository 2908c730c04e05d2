import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createOfflineProvider,
  createOpenAiCompatibleProvider,
  type ModelPort,
} from '@stratagate/model';
import {
  fakeOpenAiReply,
  startFakeOpenAiServer,
  type FakeOpenAiServer,
} from '@stratagate/model/testing';
import { describeBackend } from '@stratagate/store/testing';
import { startTestNode, type TestNode } from './harness.ts';

/**
 * Scenario S1 with the topic directory built by a model (MM-TOP-8): the other derivations stay
 * offline, the topic job goes through the OpenAI-compatible client to a scripted server that
 * answers from the events it is sent, as a model would. What the model proposes is checked,
 * recorded and projected; expanding and searching the chapter then read the read model only.
 */
const SPACE = 'topics-model-s1';

interface SentEvent {
  id: string;
  title: string;
}
interface SentCandidate {
  topicId: string;
  title: string;
}

/** A model's answer for one batch: everything about X in one chapter, npm and pnpm in a section. */
function answer(body: unknown) {
  const messages = (body as { messages: { role: string; content: string }[] }).messages;
  const user = messages.find((m) => m.role === 'user')?.content ?? '';
  const between = (tag: string) =>
    JSON.parse(user.slice(user.indexOf(`<${tag}>`) + tag.length + 2, user.indexOf(`</${tag}>`)));
  const events = between('events') as SentEvent[];
  const candidates = between('candidates') as SentCandidate[];
  const x = candidates.find((c) => c.title === 'Project X');
  const build = events.filter((e) => /npm|pnpm|CI/iu.test(e.title)).map((e) => e.id);
  const rest = events.map((e) => e.id).filter((id) => !build.includes(id));
  const sections = [
    ...(build.length > 0 ? [{ title: 'Dependencies and build', sourceEventIds: build }] : []),
    ...(rest.length > 0 ? [{ title: 'Progress', sourceEventIds: rest }] : []),
  ];
  return fakeOpenAiReply.json({
    topics: [
      {
        topicId: x?.topicId ?? null,
        title: 'Project X',
        description: 'Project X: its tooling and its progress.',
        sourceEventIds: events.map((e) => e.id),
        sections,
        paragraphs: sections.map((s) => ({
          kind: s.title === 'Progress' ? 'history' : 'change',
          text: events
            .filter((e) => s.sourceEventIds.includes(e.id))
            .map((e) => e.title)
            .join('; '),
          sourceEventIds: s.sourceEventIds,
        })),
      },
    ],
  });
}

describe(`topic directory built by a model, scenario S1 (${describeBackend()})`, () => {
  let t: TestNode;
  let fake: FakeOpenAiServer;
  const topicCalls = () =>
    fake.requests.filter((r) => JSON.stringify(r.body).includes('<events>')).length;

  async function say(threadId: string, at: string, texts: string[]) {
    for (const [i, content] of texts.entries()) {
      const res = await t.request('POST', `/v1/spaces/${SPACE}/turns`, {
        turnId: `${threadId}-${i + 1}`,
        threadId,
        occurredAt: at.replace('00:00Z', `0${i}:00Z`),
        messages: [{ role: 'user', name: 'Dev', content }],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
    }
    await t.request('POST', `/v1/spaces/${SPACE}/threads/${threadId}/close`);
    await t.settle(SPACE, undefined, 120_000);
  }

  beforeAll(async () => {
    fake = await startFakeOpenAiServer();
    fake.respondWith(answer);
    const offline = createOfflineProvider();
    const remote = createOpenAiCompatibleProvider({
      baseUrl: fake.baseUrl,
      model: 'fake-model',
      sleep: async () => {},
    });
    const model: ModelPort = { ...offline, buildTopics: remote.buildTopics!.bind(remote) };
    t = await startTestNode('topics_model_s1', {
      model,
      config: { STRATAGATE_TOPIC_BUILDER: 'model' },
    });
    expect((await t.request('PUT', `/v1/spaces/${SPACE}/settings`, { blockSize: 4 })).status).toBe(
      200,
    );
    await say('session-1', '2026-05-01T10:00:00Z', ['Project X uses npm.']);
    await say('session-2', '2026-05-06T10:00:00Z', [
      'We switched X from npm to pnpm; installs are faster and it suits our multi-package layout.',
      'CI still has to be verified after the migration.',
      'We finish the prototype of X next week.',
    ]);
  }, 300_000);
  afterAll(async () => {
    await t?.stop();
    await fake?.close();
  });

  it('puts npm → pnpm in the "Dependencies and build" section of Project X', async () => {
    expect(topicCalls()).toBeGreaterThan(0);
    const listed = (await t.request('GET', `/v1/spaces/${SPACE}/topics`)).body;
    expect(listed.topics.filter((x: { isFallback: boolean }) => x.isFallback)).toEqual([]);
    const chapters = listed.topics.filter((x: { title: string }) => x.title === 'Project X');
    expect(chapters, JSON.stringify(listed)).toHaveLength(1);
    const expanded = (await t.request('GET', `/v1/spaces/${SPACE}/topics/${chapters[0].id}`)).body;
    const events = (await t.request('GET', `/v1/spaces/${SPACE}/memory-events`)).body.events as {
      id: string;
      title: string;
      summary: string;
    }[];
    const npm = events.find((e) => /uses npm/u.test(e.title))!;
    const pnpm = events.find((e) => /pnpm/u.test(`${e.title} ${e.summary}`))!;
    const build = expanded.topic.sections.find(
      (s: { title: string }) => s.title === 'Dependencies and build',
    );
    expect(build, JSON.stringify(expanded)).toBeDefined();
    expect(build.sourceEventIds).toEqual(expect.arrayContaining([npm.id, pnpm.id]));
    // Paragraphs cite members only.
    const cited = expanded.topic.overview.groups.flatMap(
      (g: { paragraphs: { sourceEventIds: string[] }[] }) =>
        g.paragraphs.flatMap((p) => p.sourceEventIds),
    );
    expect(cited.length).toBeGreaterThan(0);
    for (const id of cited) expect(expanded.topic.sourceEventIds).toContain(id);

    // Searching the chapter finds its members only, and opens a batch to assess.
    const search = await t.request('POST', `/v1/spaces/${SPACE}/threads/s3/search/events`, {
      ...expanded.eventRetrieval,
      limit: 20,
    });
    expect(search.status, JSON.stringify(search.body)).toBe(200);
    expect(search.body.batchId).toMatch(/^batch_/u);
    for (const h of search.body.hits) expect(expanded.topic.sourceEventIds).toContain(h.id);
    expect(search.body.hits.length).toBe(expanded.topic.sourceEventIds.length);
  });

  it('reading the directory calls no model', async () => {
    const before = fake.requestCount;
    await t.request('GET', `/v1/spaces/${SPACE}/topics`);
    const list = (await t.request('GET', `/v1/spaces/${SPACE}/topics`)).body;
    await t.request('GET', `/v1/spaces/${SPACE}/topics/${list.topics[0].id}`);
    await t.request('POST', `/v1/spaces/${SPACE}/threads/s3/recall`, { message: 'X build?' });
    expect(fake.requestCount).toBe(before);
  });
});
