import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dumpReadModel, LOG_POSITION_COLUMNS } from '@stratagate/store';
import { describeBackend } from '@stratagate/store/testing';
import { SpaceWriterService } from '@stratagate/writer';
import {
  describeWithKafka,
  freshTopic,
  kafkaBrokers,
} from '../libs/log/src/kafka/kafka.test-support.ts';
import { startTestNode, turn, type TestNode } from './harness.ts';
import { everyTableText, tablesHolding } from './support/every-table.ts';
import { buildRichSpace } from './support/rich-space.ts';
import { topicText } from './support/kafka-topic.ts';
import { readModelFromZero } from './support/read-model-from-zero.ts';
import { spaceDump } from './support/space-dump.ts';

// Planted words, one token each, found nowhere else: what must be gone after each erasure.
const THREAD_SECRET = 'Zqxwvthreadsecret4471';
const AGENT_SECRET = 'Vqxkmagentsecret9902';
const SPACE_SECRET = 'Wqxjspacesecret5513';
const S = 'erase:me';
const SPACE = { tenantId: 'local', spaceId: S };

const has = (text: string, secret: string) => text.includes(secret.toLowerCase());

describe(`erasure for good (${describeBackend()})`, () => {
  let t: TestNode;
  let keyId = '';
  // A thread's rows of a table, without log positions (ordinals shift where records were erased).
  const rows = (dump: Record<string, unknown[]>, table: string, thread: string) =>
    (dump[table] as Record<string, unknown>[])
      .filter((r) => r.thread_id === thread)
      .map((r) => {
        const rest = { ...r };
        for (const column of LOG_POSITION_COLUMNS[table] ?? []) delete rest[column];
        return rest;
      });

  beforeAll(async () => {
    t = await startTestNode('erasure');
    keyId = t.key.split('_')[1]!;
    await buildRichSpace(t, S, t.key, { atlas: SPACE_SECRET, pottery: THREAD_SECRET });
    const remembered = await t.request('POST', `/v1/spaces/${S}/threads/atlas/remember`, {
      content: `The staging server password is ${AGENT_SECRET}.`,
      category: 'fact',
    });
    expect(remembered.status).toBe(200);
    await t.request('POST', '/v1/spaces/bystander/turns', turn(1, 'chat'));
    await t.settle(S);
    await t.settle('bystander');
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('finds every planted word in the stores before anything is erased', async () => {
    const text = await everyTableText(t.node.database.db);
    for (const secret of [THREAD_SECRET, AGENT_SECRET, SPACE_SECRET]) {
      expect(has(text, secret), secret).toBe(true);
    }
    // ... in the read models (the log holds ciphertext only).
    const raw = await t.node.log.readSpace(SPACE, 0, 1000);
    expect(JSON.stringify(raw)).toContain(THREAD_SECRET);
    // Searched from its own thread: the search's batch holds the query, and goes with it.
    const search = await t.request('POST', `/v1/spaces/${S}/threads/pottery/search/raw`, {
      query: THREAD_SECRET,
    });
    expect(search.body.hits.length).toBeGreaterThan(0);
  });

  it('erases a thread: no byte of it anywhere, the rest of the space as it was', async () => {
    const before = await spaceDump(t.node, SPACE);
    const status = (await t.request('GET', `/v1/spaces/${S}/status`)).body;
    const res = await t.request('DELETE', `/v1/spaces/${S}/threads/pottery`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      scope: 'thread',
      spaceId: S,
      threadId: 'pottery',
      eventId: null,
      requestedBy: keyId,
    });
    expect(res.body.keysErased).toBeGreaterThanOrEqual(1);
    await t.settle(S);

    const db = t.node.database.db;
    expect(await tablesHolding(db, THREAD_SECRET)).toEqual([]);
    expect(await tablesHolding(db, 'Kreuzberg')).toEqual([]);
    const text = await everyTableText(db);
    expect(has(text, AGENT_SECRET)).toBe(true);

    const after = await spaceDump(t.node, SPACE);
    for (const table of ['turns', 'messages', 'blocks', 'threads', 'evidence_batches']) {
      expect(rows(after, table, 'pottery'), table).toEqual([]);
      expect(rows(after, table, 'atlas'), table).toEqual(rows(before, table, 'atlas'));
    }
    expect(
      (after.memory_events as { thread_id: string }[]).every((e) => e.thread_id === 'atlas'),
    ).toBe(true);
    const now = (await t.request('GET', `/v1/spaces/${S}/status`)).body;
    expect(now.turnCounter).toBe(status.turnCounter);
    const search = await t.request('POST', `/v1/spaces/${S}/threads/atlas/search/raw`, {
      query: 'locker code market bowl',
    });
    expect(search.body.hits).toEqual([]);
    expect((await t.request('GET', `/v1/spaces/${S}/threads/pottery/context`)).status).toBe(404);

    // The erasure is on record: who, what, when, and nothing of the content.
    const records = await t.node.log.readSpace(SPACE, 0, 1000);
    const erasure = records.find((r) => r.type === 'ContentErased')!;
    expect(erasure.data).toMatchObject({
      scope: 'thread',
      threadId: 'pottery',
      requestedBy: keyId,
    });
    expect(
      records
        .filter((r) => r.metadata.threadId === 'pottery' && r.type !== 'ContentErased')
        .every((r) => r.erased),
    ).toBe(true);
    // An export leaves the erased records out; its import is the same memory.
    const exported = await t.node.http!.inject({
      method: 'GET',
      url: `/v1/spaces/${S}/export`,
      headers: { authorization: `Bearer ${t.key}` },
    });
    expect(exported.statusCode).toBe(200);
    expect(has(exported.body.toLowerCase(), THREAD_SECRET)).toBe(false);
    const imported = await t.node.http!.inject({
      method: 'POST',
      url: '/v1/spaces/erased-copy/import',
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/x-ndjson' },
      payload: exported.body,
    });
    expect(imported.statusCode, imported.body).toBe(200);
    await t.settle('erased-copy');
    expect(await spaceDump(t.node, { tenantId: 'local', spaceId: 'erased-copy' })).toEqual(
      await spaceDump(t.node, SPACE),
    );
    expect((await t.request('DELETE', '/v1/spaces/erased-copy')).status).toBe(200);
    // A retry of one of its turns finds it erased, and writes nothing.
    const retried = await t.request('POST', `/v1/spaces/${S}/turns`, {
      turnId: 'pottery-1',
      threadId: 'pottery',
      messages: [{ role: 'user', content: 'again' }],
    });
    expect(retried.status).toBe(409);
    expect(retried.body.error.code).toBe('turn_erased');
    // Asked again: nothing is left to erase.
    const again = await t.request('DELETE', `/v1/spaces/${S}/threads/pottery`);
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('thread_not_found');
  });

  it("erases one memory event's content: the agent's words are gone, the rest stays", async () => {
    const events = (await t.request('GET', `/v1/spaces/${S}/memory-events`)).body.events as {
      id: string;
      pool: string;
      summary: string;
    }[];
    const agent = events.find((e) => e.summary.includes(AGENT_SECRET))!;
    expect(agent.pool).toBe('agent');
    const res = await t.request('DELETE', `/v1/spaces/${S}/memory-events/${agent.id}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ scope: 'memory_event', eventId: agent.id });
    await t.settle(S);
    expect(await tablesHolding(t.node.database.db, AGENT_SECRET)).toEqual([]);
    expect((await t.request('GET', `/v1/spaces/${S}/memory-events/${agent.id}`)).status).toBe(404);
    const left = (await t.request('GET', `/v1/spaces/${S}/memory-events`)).body.events as {
      id: string;
    }[];
    expect(left.map((e) => e.id).sort()).toEqual(
      events
        .filter((e) => e.id !== agent.id)
        .map((e) => e.id)
        .sort(),
    );

    // An extracted event: its card leaves the read models and search; its conversation stays.
    const extracted = events.find((e) => e.pool === 'extracted')!;
    const gone = await t.request('DELETE', `/v1/spaces/${S}/memory-events/${extracted.id}`);
    expect(gone.status).toBe(200);
    await t.settle(S);
    const dump = await spaceDump(t.node, SPACE);
    expect((dump.memory_events as { event_id: string }[]).map((e) => e.event_id)).not.toContain(
      extracted.id,
    );
    expect((dump.search_docs as { doc_id: string }[]).map((d) => d.doc_id)).not.toContain(
      extracted.id,
    );
    expect(rows(dump, 'messages', 'atlas')).toHaveLength(10);
    const missing = await t.request('DELETE', `/v1/spaces/${S}/memory-events/evt_nothing`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('memory_event_not_found');
  });

  it('a rebuild from position 0 brings nothing back and equals the live read model', async () => {
    const rebuilt = await readModelFromZero(t, 'rm_after_erasure');
    const text = JSON.stringify(rebuilt).toLowerCase();
    expect(has(text, THREAD_SECRET) || has(text, AGENT_SECRET)).toBe(false);
    const live = await dumpReadModel(t.node.database.db, await t.node.readModel.get());
    expect(rebuilt).toEqual(live);
  });

  it('keeps counting: the next turn continues the numbers, also when folded from the log', async () => {
    const before = (await t.request('GET', `/v1/spaces/${S}/status`)).body.turnCounter as number;
    const res = await t.request('POST', `/v1/spaces/${S}/turns`, turn(1, 'later'));
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ spaceTurn: before + 1, threadTurn: 1 });
    const folded = await new SpaceWriterService(t.node.log).state(SPACE);
    expect(folded.turnCounter).toBe(before + 1);
    expect([...folded.threads.keys()].sort()).toEqual(['atlas', 'later']);
    await t.settle(S);
  });

  it('erases a space: nothing of it left, other spaces as they were, the id usable again', async () => {
    const bystander = await spaceDump(t.node, { tenantId: 'local', spaceId: 'bystander' });
    const res = await t.request('DELETE', `/v1/spaces/${S}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ scope: 'space', threadId: null });
    expect(await tablesHolding(t.node.database.db, SPACE_SECRET)).toEqual([]);
    // A four-letter word can turn up by chance in the log's base64 ciphertext (compared
    // lower-cased); the planted word above covers the log, this one what the talk derived.
    expect(
      (await tablesHolding(t.node.database.db, 'pnpm')).filter((table) => table !== 'log.records'),
    ).toEqual([]);
    expect((await t.request('GET', `/v1/spaces/${S}/status`)).status).toBe(404);
    expect(await spaceDump(t.node, { tenantId: 'local', spaceId: 'bystander' })).toEqual(bystander);
    expect((await t.request('GET', '/v1/spaces/nowhere/status')).status).toBe(404);
    expect((await t.request('DELETE', '/v1/spaces/nowhere')).status).toBe(404);

    const reused = await t.request('POST', `/v1/spaces/${S}/turns`, turn(2, 'fresh'));
    expect(reused.status).toBe(202);
    await t.settle(S);
    const context = await t.request('GET', `/v1/spaces/${S}/threads/fresh/context`);
    expect(context.status).toBe(200);
    expect(JSON.stringify(context.body)).toContain('Turn 2');
  });
});

// On Kafka the topic never holds plaintext, and the index's copies are sealed too (ADR 0046).
describeWithKafka(`erasure on the Kafka log (${describeBackend()})`, () => {
  let t: TestNode;
  const topic = freshTopic('erasure');

  beforeAll(async () => {
    t = await startTestNode('erasure-kafka', {
      config: {
        STRATAGATE_LOG_BACKEND: 'kafka',
        KAFKA_BROKERS: kafkaBrokers.join(','),
        STRATAGATE_KAFKA_TOPIC: topic,
        STRATAGATE_KAFKA_SESSION_TIMEOUT_MS: '6000',
      },
    });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it(
    'keeps only ciphertext on the topic and erases a thread from every table',
    { timeout: 600_000 },
    async () => {
      await t.request('PUT', '/v1/spaces/k/settings', { blockSize: 2 });
      for (const [i, content] of [
        `My bank PIN is ${THREAD_SECRET}.`,
        'I bought a bike today.',
      ].entries()) {
        await t.request('POST', '/v1/spaces/k/turns', {
          turnId: `secret-${i}`,
          threadId: 'secret',
          messages: [
            { role: 'user', content },
            { role: 'assistant', content: 'Noted.' },
          ],
        });
      }
      await t.request('POST', '/v1/spaces/k/turns', turn(1, 'keep'));
      await t.request('POST', '/v1/spaces/k/threads/keep/close', {});
      await t.settle('k', undefined, 300_000);
      const db = t.node.database.db;
      expect((await tablesHolding(db, THREAD_SECRET)).length).toBeGreaterThan(0);
      const kafka = t.node.kafka!.kafka;
      const before = await topicText(kafka, topic);
      expect(before).toContain('"$sealed":1');
      expect(has(before, THREAD_SECRET)).toBe(false);
      expect(before).not.toContain('pottery');

      const res = await t.request('DELETE', '/v1/spaces/k/threads/secret');
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      await t.settle('k', undefined, 300_000);
      expect(await tablesHolding(db, THREAD_SECRET)).toEqual([]);
      expect(has(await topicText(kafka, topic), THREAD_SECRET)).toBe(false);
      const context = await t.request('GET', '/v1/spaces/k/threads/keep/context');
      expect(JSON.stringify(context.body)).toContain('pottery');
      expect((await t.request('GET', '/v1/spaces/k/threads/secret/context')).status).toBe(404);
    },
  );
});
