import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeOpenAiReply, type FakeOpenAiServer } from '@stratagate/model/testing';
import { coreProjection, createProjector } from '@stratagate/projector';
import { dumpReadModel } from '@stratagate/store';
import { describeBackend } from '@stratagate/store/testing';
import { startFakeModelNode, startTestNode, type TestNode } from './harness.ts';

type Body = { messages: { role: string; content: string }[] };

/** Scripted model for scenario S1 (memory-model.md §15): replies computed from each request. */
function s1Model(server: FakeOpenAiServer) {
  server.respondWith((raw) => {
    const body = raw as Body;
    const system = body.messages[0]?.content ?? '';
    const user = body.messages[1]?.content ?? '';
    if (system.startsWith('You summarise')) {
      return fakeOpenAiReply.json({
        title: 'Project X package manager',
        tags: ['project-x', 'build'],
        summary: 'The package manager of project X was discussed.',
        keyPoints: ['Package manager discussed.', 'CI mentioned.', 'Prototype timing mentioned.'],
        shouldExtract: true,
      });
    }
    if (system.startsWith('You extract memory events')) {
      const ids = /Allowed sourceMessageIds: (.*)/.exec(user)![1]!.split(', ');
      const timeline = [...user.matchAll(/^(\{"id".*\})$/gm)].map((m) => JSON.parse(m[1]!));
      const e1 = timeline.find((t: { title: string }) => t.title === 'X uses npm');
      if (!e1) {
        return fakeOpenAiReply.json({
          events: [
            event('X uses npm', 'Project X uses npm as its package manager.', [ids[0]!], {
              eventType: 'decision',
              status: 'occurred',
              mentionedAt: '2024-05-01T09:00:00Z',
            }),
          ],
        });
      }
      return fakeOpenAiReply.json({
        events: [
          {
            ...event(
              'X switched from npm to pnpm',
              'Project X switched its package manager from npm to pnpm.',
              [ids[0]!],
              {
                eventType: 'change',
                status: 'occurred',
                mentionedAt: '2024-05-06T09:00:00Z',
              },
            ),
            relations: {
              supersedesEventIds: [e1.id],
              conflictsWithEventIds: [],
              relatedEventIds: [],
            },
          },
          event(
            'CI pending verification',
            'CI of project X still has to be verified after the migration.',
            [ids[1]!],
            {
              eventType: 'other',
              status: 'ongoing',
              mentionedAt: '2024-05-06T09:00:00Z',
            },
          ),
          event(
            'Prototype planned for next week',
            'Project X plans to finish the prototype next week.',
            [ids[2]!],
            {
              eventType: 'plan',
              status: 'planned',
              mentionedAt: '2024-05-06T09:00:00Z',
              happenedStart: '2024-05-13',
              happenedEnd: '2024-05-19',
              originalText: 'next week',
              precision: 'range',
              basis: 'relative',
            },
          ),
        ],
      });
    }
    if (system.startsWith('You maintain the knowledge graph')) {
      const lines = [...user.matchAll(/^(\{"id".*\})$/gm)].map((m) => JSON.parse(m[1]!));
      const events = lines.filter((l) => 'title' in l) as { id: string; title: string }[];
      const nodes = lines.filter((l) => 'name' in l) as { id: string; name: string }[];
      const id = (title: string) => events.find((e) => e.title === title)?.id;
      const x = nodes.find((n) => n.name === 'X')?.id ?? 'x';
      const e1 = id('X uses npm');
      if (e1) {
        return fakeOpenAiReply.json({
          nodes: [
            {
              ref: 'x',
              name: 'X',
              type: 'project',
              nameSourceEventIds: [e1],
              sourceEventIds: [e1],
            },
            {
              ref: 'npm',
              name: 'npm',
              type: 'tool',
              nameSourceEventIds: [e1],
              sourceEventIds: [e1],
            },
          ],
          edges: [{ fromRef: 'x', toRef: 'npm', relation: 'uses', sourceEventIds: [e1] }],
        });
      }
      const e2 = id('X switched from npm to pnpm')!;
      const e3 = id('CI pending verification')!;
      return fakeOpenAiReply.json({
        nodes: [
          {
            ref: x,
            name: 'X',
            type: 'project',
            nameSourceEventIds: [e2],
            sourceEventIds: [e2, e3],
            facts: [{ key: 'ci', value: 'pending verification', sourceEventIds: [e3] }],
          },
          {
            ref: 'pnpm',
            name: 'pnpm',
            type: 'tool',
            nameSourceEventIds: [e2],
            sourceEventIds: [e2],
          },
        ],
        edges: [{ fromRef: x, toRef: 'pnpm', relation: 'uses', sourceEventIds: [e2] }],
      });
    }
    return undefined;
  });
}

function event(
  title: string,
  summary: string,
  sourceMessageIds: string[],
  temporal: Record<string, unknown>,
) {
  return {
    title,
    summary,
    tags: ['project-x'],
    quotes: [],
    sourceMessageIds,
    scope: 'project',
    criticality: 'routine',
    temporal: { participants: [], precision: 'unknown', basis: 'unknown', ...temporal },
    relations: { supersedesEventIds: [], conflictsWithEventIds: [], relatedEventIds: [] },
    catalogHints: [],
  };
}

describe(`memory events with a real model client (S1 npm → pnpm) (${describeBackend()})`, () => {
  let t: TestNode;
  let fake: FakeOpenAiServer;
  beforeAll(async () => {
    ({ t, fake } = await startFakeModelNode('events_s1', 'x'));
    s1Model(fake);
  });
  afterAll(async () => {
    await t?.stop();
  });

  const events = async () => (await t.request('GET', '/v1/spaces/x/memory-events')).body.events;

  it('records two decisions, a supersede relation, an ongoing CI fact and a planned prototype', async () => {
    await t.request('POST', '/v1/spaces/x/turns', {
      turnId: 'm1',
      occurredAt: '2024-05-01T09:00:00Z',
      messages: [
        { role: 'user', content: 'This project uses npm.' },
        { role: 'assistant', content: 'Noted.' },
      ],
    });
    await t.settle('x');
    await t.request('POST', '/v1/spaces/x/turns', {
      turnId: 'm2',
      occurredAt: '2024-05-06T09:00:00Z',
      messages: [
        {
          role: 'user',
          content:
            'We switched to pnpm; installs are faster and it suits our multi-package layout.',
        },
        { role: 'user', content: 'CI still has to be verified after the migration.' },
        { role: 'user', content: 'We finish the prototype next week.' },
        { role: 'assistant', content: 'Understood.' },
      ],
    });
    await t.settle('x');
    const all = await events();
    const byTitle = (title: string) => all.find((e: { title: string }) => e.title === title);
    const e1 = byTitle('X uses npm');
    const e2 = byTitle('X switched from npm to pnpm');
    const e3 = byTitle('CI pending verification');
    const e4 = byTitle('Prototype planned for next week');
    expect(e1.status).toBe('superseded');
    expect(e1.supersededBy).toBe(e2.id);
    expect(e1.weight.forcedCap).toBe(0.1);
    expect(e1.weight.value).toBeLessThanOrEqual(0.1);
    expect(e1.summary).toBe('Project X uses npm as its package manager.');
    expect(e2.status).toBe('active');
    expect(e2.temporal.supersedesEventIds).toEqual([e1.id]);
    expect(e3.temporal.status).toBe('ongoing');
    expect(e4.temporal).toMatchObject({
      status: 'planned',
      mentionedAt: '2024-05-06T09:00:00Z',
      happenedStart: '2024-05-13',
      precision: 'range',
      basis: 'relative',
    });
  });

  it('traces provenance down to the source messages; the "why" lives only in the raw message', async () => {
    const e2 = (await events()).find(
      (e: { title: string }) => e.title === 'X switched from npm to pnpm',
    );
    const detail = await t.request('GET', `/v1/spaces/x/memory-events/${e2.id}`);
    expect(detail.status).toBe(200);
    expect(detail.body.sources).toHaveLength(1);
    expect(detail.body.sources[0].content).toContain('installs are faster');
    expect(detail.body.summary).not.toContain('faster');
  });

  it('the graph shows pnpm current and npm historical, with provenance down to the messages', async () => {
    const nodes = (await t.request('GET', '/v1/spaces/x/graph/nodes')).body.nodes;
    const x = nodes.find((n: { name: string }) => n.name === 'X');
    const names = x.nodeNames as Record<string, string>;
    const target = (e: { toId: string }) => names[e.toId] ?? e.toId;
    expect(
      x.currentEdges.map((e: { relation: string; toId: string }) => [e.relation, target(e)]),
    ).toEqual([['uses', 'pnpm']]);
    expect(
      x.historicalEdges.map((e: { relation: string; toId: string }) => [e.relation, target(e)]),
    ).toEqual([['uses', 'npm']]);
    expect(x.currentState).toContain('ci: pending verification');
    expect(x.currentState).not.toContain('passed');
    const all = await events();
    const e1 = all.find((e: { title: string }) => e.title === 'X uses npm');
    const e2 = all.find((e: { title: string }) => e.title === 'X switched from npm to pnpm');
    expect(x.currentEdges[0].citedEventIds).toEqual([e2.id]);
    expect(x.historicalEdges[0].citedEventIds).toEqual([e1.id]);
    const detail = await t.request('GET', `/v1/spaces/x/graph/nodes/${x.id}`);
    expect(detail.body.nodeNames[detail.body.currentEdges[0].toId]).toBe('pnpm');
    const provenance = detail.body.provenance as { eventId: string; sourceMessageIds: string[] }[];
    expect(provenance.map((p) => p.eventId)).toContain(e2.id);
    const e2Provenance = provenance.find((p) => p.eventId === e2.id) as unknown as {
      sourceMessageIds: string[];
      sources: { content: string }[];
    };
    expect(e2Provenance.sources[0]!.content).toContain('We switched to pnpm');
    const messages = e2Provenance.sourceMessageIds;
    const source = await t.request('GET', `/v1/spaces/x/memory-events/${e2.id}`);
    expect(source.body.sources.map((m: { messageId: string }) => m.messageId)).toEqual(messages);
  });

  it('every event learns the graph nodes it backs, as the graph records said (MM-GRF-7)', async () => {
    await t.settle('x');
    const said = new Map<string, string[]>();
    for (const r of await t.node.log.readAll(0, 10_000)) {
      if (r.type !== 'GraphProjected') continue;
      const data = r.data as { eventNodeIds: Record<string, string[]> };
      for (const [eventId, nodeIds] of Object.entries(data.eventNodeIds))
        said.set(eventId, nodeIds);
    }
    const live = await dumpReadModel(
      t.node.database.db,
      t.node.config.STRATAGATE_READ_MODEL_SCHEMA,
    );
    const learnt = new Map(
      (live.memory_events as { event_id: string; participant_node_ids: string[] }[]).map((e) => [
        e.event_id,
        e.participant_node_ids,
      ]),
    );
    expect(said.size).toBeGreaterThan(1);
    expect([...said.values()].some((ids) => ids.length > 1)).toBe(true);
    for (const [eventId, nodeIds] of said) expect(learnt.get(eventId)).toEqual(nodeIds);
  });

  it('a rebuild from position 0 reproduces the same memory events with zero model calls', async () => {
    await t.settle('x');
    await t.node.consolidator!.stop();
    await t.node.projector!.stop();
    const calls = fake.requestCount;
    const db = t.node.database.db;
    await createProjector({
      db,
      log: t.node.log,
      schema: 'rm_events_rebuild',
      projection: coreProjection,
    }).catchUp();
    const live = await dumpReadModel(db, t.node.config.STRATAGATE_READ_MODEL_SCHEMA);
    const rebuilt = await dumpReadModel(db, 'rm_events_rebuild');
    expect(rebuilt.memory_events).toHaveLength(4);
    expect(rebuilt.graph_nodes).toHaveLength(3);
    expect(rebuilt.graph_edges).toHaveLength(2);
    expect(rebuilt).toEqual(live);
    expect(fake.requestCount).toBe(calls);
  });
});

describe(`memory events with the offline extractor (S2 school talk) (${describeBackend()})`, () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode('events_s2');
    await t.request('PUT', '/v1/spaces/locomo/settings', { blockSize: 1 });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('resolves "last week" against the message time, keeping the original text', async () => {
    const res = await t.request('POST', '/v1/spaces/locomo/turns', {
      threadId: 'session-5',
      occurredAt: '2023-06-09T13:56:00Z',
      messages: [
        {
          role: 'user',
          name: 'Caroline',
          content: 'I gave a talk at a school last week about my journey.',
        },
        {
          role: 'assistant',
          name: 'Melanie',
          content: 'That is wonderful, how did the students react?',
        },
      ],
    });
    expect(res.status).toBe(202);
    await t.settle('locomo');
    const list = (await t.request('GET', '/v1/spaces/locomo/memory-events')).body.events;
    const talk = list.find((e: { title: string }) => /talk/i.test(e.title));
    expect(talk).toBeDefined();
    expect(talk.temporal).toMatchObject({
      mentionedAt: '2023-06-09T13:56:00Z',
      happenedStart: '2023-05-29',
      happenedEnd: '2023-06-04',
      precision: 'range',
      basis: 'relative',
      originalText: 'last week',
      status: 'occurred',
    });
    expect(talk.temporal.participants).toContain('Caroline');
    const detail = await t.request('GET', `/v1/spaces/locomo/memory-events/${talk.id}`);
    expect(detail.body.sources[0].content).toContain('school last week');
    const status = (await t.request('GET', '/v1/spaces/locomo/status')).body;
    expect(status.extractionJobs.succeeded).toBe(1);
  });
});
