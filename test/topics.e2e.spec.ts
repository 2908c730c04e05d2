import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeRecord } from '@stratagate/domain';
import { createCoreProjection } from '@stratagate/projector';
import { migrateReadModel, type ReadModelTables, type TopicRow } from '@stratagate/store';
import { describeBackend } from '@stratagate/store/testing';
import { startTestNode, type TestNode } from './harness.ts';

/**
 * The topic directory end to end with the default offline provider (MM-TOP): scenario S1
 * (npm → pnpm in project X) is ingested, consolidated and grouped into one "Project X" chapter
 * whose section holds the switch; forgetting a member invalidates the chapter once and its rebuild
 * no longer cites it; a replay of the log from position 0 gives the same chapters, with no model.
 */
const SPACE = 'topics-s1';

describe(`topic directory, scenario S1 (${describeBackend()})`, () => {
  let t: TestNode;
  let schema: string;
  const rm = (name = schema) => (t.node.database.db as Kysely<ReadModelTables>).withSchema(name);
  const topics = async (name = schema) =>
    (await rm(name)
      .selectFrom('topics')
      .selectAll()
      .where('tenant_id', '=', 'local')
      .where('space_id', '=', SPACE)
      .orderBy('created_at')
      .orderBy('topic_id')
      .execute()) as TopicRow[];
  const events = async () =>
    rm()
      .selectFrom('memory_events')
      .select(['event_id', 'title', 'summary', 'status'])
      .where('tenant_id', '=', 'local')
      .where('space_id', '=', SPACE)
      .orderBy('record_position')
      .execute();
  const topicRecords = async () =>
    (await t.node.log.readSpace({ tenantId: 'local', spaceId: SPACE }, 0, 1000))
      .map((r) => decodeRecord(r))
      .filter((r) => r?.type === 'TopicsBuilt' || r?.type === 'TopicJobFailed');

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
    const closed = await t.request('POST', `/v1/spaces/${SPACE}/threads/${threadId}/close`);
    expect([200, 202]).toContain(closed.status);
    await t.settle(SPACE, undefined, 120_000);
  }

  beforeAll(async () => {
    t = await startTestNode('topics_s1');
    schema = await t.node.readModel.get();
    const res = await t.request('PUT', `/v1/spaces/${SPACE}/settings`, { blockSize: 4 });
    expect(res.status).toBe(200);
    await say('session-1', '2026-05-01T10:00:00Z', ['Project X uses npm.']);
    await say('session-2', '2026-05-06T10:00:00Z', [
      'We switched X from npm to pnpm; installs are faster and it suits our multi-package layout.',
      'CI still has to be verified after the migration.',
      'We finish the prototype of X next week.',
    ]);
  }, 300_000);
  afterAll(async () => {
    await t?.stop();
  });

  it('groups S1 into a "Project X" chapter whose section holds npm → pnpm', async () => {
    const all = await events();
    const npm = all.find((e) => /uses npm/u.test(e.title))!;
    const pnpm = all.find((e) => /pnpm/u.test(`${e.title} ${e.summary}`))!;
    expect(npm, JSON.stringify(all)).toBeDefined();
    expect(pnpm, JSON.stringify(all)).toBeDefined();
    const chapters = await topics();
    const x = chapters.find((c) => c.source_event_ids.includes(pnpm.event_id))!;
    expect(x.title, JSON.stringify(chapters)).toMatch(/X/u);
    expect(x.topic_id).toMatch(/^topic_[0-9a-f]{12}$/u);
    expect(x.source_event_ids).toContain(npm.event_id);
    const section = x.sections.find((s) => s.sourceEventIds.includes(pnpm.event_id))!;
    expect(section.sourceEventIds, JSON.stringify({ all, chapters })).toContain(npm.event_id);
    for (const p of x.paragraphs) {
      for (const id of p.sourceEventIds) expect(x.source_event_ids).toContain(id);
    }
    // Every visible event is in a chapter; the status says there is nothing left to do.
    const status = await t.request('GET', `/v1/spaces/${SPACE}/status`);
    expect(status.body.topicJobs).toMatchObject({
      unassignedEvents: 0,
      pendingUpdate: 0,
      status: 'idle',
    });
    const members = chapters.flatMap((c) => c.source_event_ids);
    const visible = all.filter((e) => e.status === 'active' || e.status === 'superseded');
    expect([...members].sort()).toEqual(visible.map((e) => e.event_id).sort());
  });

  it('lists and expands topics without writing anything (MM-TOP-1, MM-TOP-10)', async () => {
    const space = { tenantId: 'local', spaceId: SPACE };
    const versionBefore = await t.node.log.spaceVersion(space);
    const list = await t.request('GET', `/v1/spaces/${SPACE}/topics`);
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect(list.body).toMatchObject({ space: SPACE, navigationOnly: true, offset: 0 });
    const x = list.body.topics.find((c: { title: string }) => /X/u.test(c.title));
    expect(x, JSON.stringify(list.body)).toMatchObject({ number: 1, isFallback: false });
    expect(list.body.total).toBe(list.body.topics.length);
    const byQuery = await t.request('GET', `/v1/spaces/${SPACE}/topics?query=project%20x&limit=1`);
    expect(byQuery.body.topics[0].id).toBe(x.id);
    const byCategory = await t.request('GET', `/v1/spaces/${SPACE}/topics?category=${x.category}`);
    expect(byCategory.body.topics.map((c: { id: string }) => c.id)).toContain(x.id);
    const expanded = await t.request('GET', `/v1/spaces/${SPACE}/topics/${x.id}`);
    expect(expanded.status, JSON.stringify(expanded.body)).toBe(200);
    expect(expanded.body.eventRetrieval).toEqual({ topicId: x.id, query: '', offset: 0 });
    const topic = expanded.body.topic;
    expect(topic.sections[0].number).toBe('1.1');
    expect(topic.overview.number).toBe('1.0');
    expect(topic.tokens).toBeLessThanOrEqual(2400);
    const cited = topic.overview.groups.flatMap(
      (g: { paragraphs: { sourceEventIds: string[] }[] }) =>
        g.paragraphs.flatMap((p) => p.sourceEventIds),
    );
    expect(cited.length).toBeGreaterThan(0);
    for (const id of cited) expect(topic.sourceEventIds).toContain(id);
    // Unknown fields and topics are refused in the one error envelope.
    expect((await t.request('GET', `/v1/spaces/${SPACE}/topics?q=x`)).status).toBe(400);
    expect((await t.request('GET', `/v1/spaces/${SPACE}/topics?limit=21`)).status).toBe(400);
    const missing = await t.request('GET', `/v1/spaces/${SPACE}/topics/topic_000000000000`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('topic_not_found');
    // Reading the directory appended nothing: no batch, no reinforcement, no model output.
    expect(await t.node.log.spaceVersion(space)).toBe(versionBefore);
  });

  it('recall shows the directory within its 400 tokens, before activated memory (MM-TOP-10)', async () => {
    const space = { tenantId: 'local', spaceId: SPACE };
    const versionBefore = await t.node.log.spaceVersion(space);
    const recall = await t.request('POST', `/v1/spaces/${SPACE}/threads/session-3/recall`, {
      message: 'How is the build of X going?',
    });
    expect(recall.status, JSON.stringify(recall.body)).toBe(200);
    const listed = (await t.request('GET', `/v1/spaces/${SPACE}/topics`)).body;
    const d = recall.body.directory;
    expect(d).toMatchObject({ limitTokens: 400, form: 'lines', topicCount: listed.total });
    expect(d.usedTokens).toBeGreaterThan(0);
    expect(d.usedTokens).toBeLessThanOrEqual(400);
    expect(recall.body.tokens.directory).toBe(d.usedTokens);
    // One line per topic, each naming the topic's id.
    for (const topic of listed.topics) expect(d.text).toContain(`- ${topic.id} `);
    const text: string = recall.body.contextText;
    expect(text).toContain(d.text);
    expect(text.indexOf('## Topics')).toBeLessThan(text.indexOf('## Activated memory'));
    // Recall reads the directory; it writes nothing.
    expect(await t.node.log.spaceVersion(space)).toBe(versionBefore);
  });

  it("searches a topic's events only, earliest first with no words, paging, opening a batch (MM-TOP-11)", async () => {
    const listed = (await t.request('GET', `/v1/spaces/${SPACE}/topics`)).body;
    const x = listed.topics.find((c: { title: string }) => /X/u.test(c.title));
    const chapter = (await t.request('GET', `/v1/spaces/${SPACE}/topics/${x.id}`)).body;
    const members: string[] = chapter.topic.sourceEventIds;
    expect(members.length).toBeGreaterThan(1);
    const search = (body: object) =>
      t.request('POST', `/v1/spaces/${SPACE}/threads/session-3/search/events`, body);

    const all = await search({ ...chapter.eventRetrieval, limit: 20 });
    expect(all.status, JSON.stringify(all.body)).toBe(200);
    const ids = all.body.hits.map((h: { id: string }) => h.id);
    expect([...ids].sort()).toEqual([...members].sort());
    expect(all.body.topic).toEqual({
      topicId: x.id,
      totalSourceEvents: members.length,
      offset: 0,
      nextOffset: null,
    });
    expect(all.body.batchId).toMatch(/^batch_/u);
    // Earliest first: by when each event was said or happened.
    const times = all.body.hits.map((h: { sourceTime: string }) => h.sourceTime);
    expect(times).toEqual([...times].sort());

    const first = await search({ topicId: x.id, query: '', limit: 1 });
    expect(first.body.hits.map((h: { id: string }) => h.id)).toEqual([ids[0]]);
    expect(first.body.topic.nextOffset).toBe(1);
    const second = await search({ topicId: x.id, query: '', limit: 1, offset: 1 });
    expect(second.body.hits.map((h: { id: string }) => h.id)).toEqual([ids[1]]);

    // Words rank within the topic only; another topic's or a loose event never comes back.
    const worded = await search({ topicId: x.id, query: 'pnpm npm', limit: 20 });
    for (const h of worded.body.hits) expect(members).toContain(h.id);
    const everywhere = await search({ query: 'pnpm npm', limit: 20 });
    expect(everywhere.body.topic).toBeUndefined();

    const missing = await search({ topicId: 'topic_000000000000', query: '' });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('topic_not_found');
  });

  it('a replay from position 0 gives the same chapters without a model call', async () => {
    const replay = 'rm_topics_replay';
    const db = t.node.database.db;
    await migrateReadModel(db, replay);
    const records = (await t.node.log.readAll(0, 10_000))
      .map((r) => decodeRecord(r))
      .filter((r) => r !== null);
    // The projection is handed no model: whatever it builds comes from the records.
    await db.transaction().execute((trx) => createCoreProjection().handle(trx, replay, records));
    const again = await topics(replay);
    const strip = (rows: TopicRow[]) => rows.map(({ applied_position: _p, ...rest }) => rest);
    expect(strip(again)).toEqual(strip(await topics()));
    expect(again.length).toBeGreaterThan(0);
  });

  it('forgetting a member invalidates its chapter once; the rebuilt chapter no longer cites it', async () => {
    const before = await topics();
    const x = before.find((c) => c.source_event_ids.length > 1)!;
    const forgotten = x.source_event_ids[0]!;
    const builtBefore = (await topicRecords()).length;
    const res = await t.request('POST', `/v1/spaces/${SPACE}/memory-events/${forgotten}/forget`);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    await t.settle(SPACE, undefined, 120_000);
    const after = await topics();
    const rebuilt = after.find((c) => c.topic_id === x.topic_id)!;
    // Same chapter, same place in the directory: its id and creation are kept (MM-TOP-5).
    expect(rebuilt.created_at).toBe(x.created_at);
    expect(rebuilt.pending_update).toBe(false);
    expect(rebuilt.source_event_ids).not.toContain(forgotten);
    expect(JSON.stringify(rebuilt.sections)).not.toContain(forgotten);
    expect(JSON.stringify(rebuilt.paragraphs)).not.toContain(forgotten);
    expect(rebuilt.paragraphs.length).toBeGreaterThan(0);
    // One batch rebuilt it: invalidated once, not once per member.
    const records = await topicRecords();
    expect(records.length - builtBefore).toBe(1);
    expect(records.at(-1)?.type).toBe('TopicsBuilt');
  });

  it("a restored event finds a chapter again, even when it was its chapter's only member", async () => {
    // A space of its own with one event: forgetting it empties its chapter, so the job that
    // places it after the restore reads the same batch as the first one did.
    const lone = `${SPACE}-lone`;
    expect((await t.request('PUT', `/v1/spaces/${lone}/settings`, { blockSize: 1 })).status).toBe(
      200,
    );
    const turn = await t.request('POST', `/v1/spaces/${lone}/turns`, {
      threadId: 'only',
      occurredAt: '2026-05-02T10:00:00Z',
      messages: [
        { role: 'user', name: 'Dev', content: 'Project Y ships its first beta on Friday.' },
      ],
    });
    expect(turn.status, JSON.stringify(turn.body)).toBe(202);
    await t.settle(lone, undefined, 120_000);
    const listed = async () =>
      (await t.request('GET', `/v1/spaces/${lone}/topics`)).body as {
        topics: { id: string; isFallback: boolean; pendingUpdate: boolean }[];
      };
    const eventId = (await t.request('GET', `/v1/spaces/${lone}/memory-events`)).body.events[0]
      .id as string;
    const first = (await listed()).topics;
    expect(first.filter((x) => !x.isFallback)).toHaveLength(1);

    expect(
      (await t.request('POST', `/v1/spaces/${lone}/memory-events/${eventId}/forget`)).status,
    ).toBe(202);
    await t.settle(lone, undefined, 120_000);
    // The emptied chapter is not listed, and nothing is left pending.
    expect((await listed()).topics).toEqual([]);
    const status = (await t.request('GET', `/v1/spaces/${lone}/status`)).body;
    expect(status.topicJobs).toMatchObject({
      unassignedEvents: 0,
      pendingUpdate: 0,
      status: 'idle',
    });

    expect(
      (await t.request('POST', `/v1/spaces/${lone}/memory-events/${eventId}/restore`)).status,
    ).toBe(202);
    await t.settle(lone, undefined, 120_000);
    const back = (await listed()).topics;
    expect(back.filter((x) => x.isFallback)).toEqual([]);
    expect(back).toHaveLength(1);
  });

  it('with agent memory at weight 0, chapters holding agent events step aside (MM-TOP-4)', async () => {
    const space = `${SPACE}-agent`;
    expect((await t.request('PUT', `/v1/spaces/${space}/settings`, { blockSize: 1 })).status).toBe(
      200,
    );
    const turn = await t.request('POST', `/v1/spaces/${space}/turns`, {
      threadId: 'z',
      occurredAt: '2026-05-03T10:00:00Z',
      messages: [{ role: 'user', name: 'Dev', content: 'Project Z ships its beta on Friday.' }],
    });
    expect(turn.status, JSON.stringify(turn.body)).toBe(202);
    await t.settle(space, undefined, 120_000);
    const remembered = await t.request('POST', `/v1/spaces/${space}/threads/z/remember`, {
      content: 'Project Z builds with Vite.',
      category: 'fact',
    });
    expect(remembered.status, JSON.stringify(remembered.body)).toBe(200);
    const agentId: string = remembered.body.eventId;
    await t.settle(space, undefined, 120_000);

    type Listed = { id: string; isFallback: boolean };
    const list = async (weight?: number) =>
      (
        await t.request(
          'GET',
          `/v1/spaces/${space}/topics${weight === undefined ? '' : `?agentMemoryWeight=${weight}`}`,
        )
      ).body.topics as Listed[];
    const members = async (id: string, weight?: number) =>
      (
        await t.request(
          'GET',
          `/v1/spaces/${space}/topics/${id}${weight === undefined ? '' : `?agentMemoryWeight=${weight}`}`,
        )
      ).body.topic?.sourceEventIds as string[] | undefined;

    const all = await list();
    const holding: string[] = [];
    for (const x of all.filter((x) => !x.isFallback)) {
      if ((await members(x.id))!.includes(agentId)) holding.push(x.id);
    }
    expect(holding).toHaveLength(1);
    const without = await list(0);
    const ids = without.map((x) => x.id);
    expect(ids).not.toContain(holding[0]);
    expect(ids).not.toContain(`fallback:${agentId}`);
    // The hidden chapter's other events are listed on their own.
    for (const id of (await members(holding[0]!))!.filter((id) => id !== agentId)) {
      expect(ids).toContain(`fallback:${id}`);
    }
    const hidden = await t.request(
      'GET',
      `/v1/spaces/${space}/topics/${holding[0]}?agentMemoryWeight=0`,
    );
    expect(hidden.status).toBe(404);
    expect((await t.request('GET', `/v1/spaces/${space}/topics?agentMemoryWeight=6`)).status).toBe(
      400,
    );
  });
});
