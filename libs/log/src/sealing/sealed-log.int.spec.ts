import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeRecord, type NewRecord, type SpaceRef } from '@stratagate/domain';
import type { Database } from '@stratagate/store';
import { describeBackend } from '@stratagate/store/testing';
import { freshSpace, makeRecord, sharedTestDatabase } from '../contract/fixtures.ts';
import { testMessageLog } from '../message-log.contract.ts';
import type { MessageLog } from '../message-log.ts';
import { createPostgresLog, postgresLogCapabilities } from '../postgres-log.ts';
import { DataKeyStore } from './data-keys.ts';
import { createSealedLog } from './sealed-log.ts';

const shared = sharedTestDatabase('sealed-log');
let counter = 0;

async function freshLog(): Promise<{
  log: MessageLog;
  inner: MessageLog;
  keys: DataKeyStore;
  db: Database;
  schema: string;
}> {
  const db = await shared();
  counter += 1;
  const schema = `sealed_case_${counter}`;
  const keys = new DataKeyStore(db.db);
  await keys.migrate();
  const inner = await createPostgresLog(db, { schema });
  return { log: createSealedLog(inner, keys), inner, keys, db, schema };
}

// The sealed log keeps every promise of the port.
testMessageLog(
  `sealed postgres table on ${describeBackend()}`,
  async () => {
    const { log, db, schema } = await freshLog();
    return {
      log,
      teardown: async () => {
        await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(db.db);
      },
    };
  },
  { capabilities: postgresLogCapabilities },
);

const SECRET = 'zq-planted-7731-secret';

function turn(space: SpaceRef, threadId: string, n: number, content: string): NewRecord {
  return makeRecord(
    space,
    {
      turnId: `${threadId}-${n}`,
      threadId,
      spaceTurn: n,
      threadTurn: n,
      occurredAt: '2023-05-01T10:00:00Z',
      messages: [{ messageId: `msg_${threadId}_${n}`, role: 'user', content, toolCalls: [] }],
    },
    { threadId },
    'TurnRecorded',
  );
}

function event(id: string, title: string) {
  return {
    id,
    title,
    summary: `${title}.`,
    tags: [],
    quotes: [],
    sourceMessageIds: ['msg_a_1'],
    sourceBlockId: 'blk_a',
    scope: 'project',
    criticality: 'routine',
    temporal: {},
    catalogHints: [],
    formedTurn: 1,
  };
}

const extraction = (space: SpaceRef, threadId: string, blockId: string, events: unknown[]) =>
  makeRecord(
    space,
    {
      blockId,
      attempt: 1,
      events,
      model: { provider: 'test', promptVersion: 'v1' },
    },
    { threadId },
    'MemoryEventsExtracted',
  );

const graph = (space: SpaceRef, threadId: string, blockId: string, sources: string[][]) =>
  makeRecord(
    space,
    {
      blockId,
      attempt: 1,
      eventIds: [...new Set(sources.flat())],
      operations: sources.map((s, i) => ({
        op: 'fact.add',
        fact: {
          id: `gfact_${i}`,
          nodeId: 'node_1',
          key: 'note',
          value: `${SECRET}-fact-${i}`,
          status: 'active',
          confidence: 0.9,
          sourceEventIds: s,
          validFrom: null,
          validTo: null,
        },
      })),
      warnings: [],
      eventNodeIds: {},
      model: { provider: 'test', promptVersion: 'v1' },
    },
    { threadId },
    'GraphProjected',
  );

const seal = (space: SpaceRef, threadId: string, blockId: string) =>
  makeRecord(
    space,
    {
      blockId,
      threadId,
      sequence: 1,
      turnFrom: 1,
      turnTo: 1,
      spaceTurnTo: 1,
      turnIds: [`${threadId}-1`],
      blockSize: 1,
    },
    { threadId },
    'BlockSealed',
  );

/** Every row of the log's table and the key tables, as text. */
async function rawText(db: Database, schema: string): Promise<string> {
  const { rows } = await sql`select * from ${sql.id(schema, 'records')}`.execute(db.db);
  return JSON.stringify(rows);
}

describe(`sealed log on ${describeBackend()}`, () => {
  let s: Awaited<ReturnType<typeof freshLog>>;
  beforeAll(async () => {
    s = await freshLog();
  });

  it('stores only ciphertext and reads back what was appended', async () => {
    const space = freshSpace();
    const appended = await s.log.append(space, [turn(space, 'a', 1, `hello ${SECRET}`)]);
    expect(appended.status).toBe('appended');
    if (appended.status !== 'appended') return;
    expect(JSON.stringify(appended.records[0]!.data)).toContain(SECRET);
    expect(await rawText(s.db, s.schema)).not.toContain(SECRET);
    const [read] = await s.log.readSpace(space, 0, 10);
    expect(read!.data).toEqual(turn(space, 'a', 1, `hello ${SECRET}`).data);
    expect(decodeRecord(read!)?.type).toBe('TurnRecorded');
    const [raw] = await s.inner.readSpace(space, 0, 10);
    expect(raw!.data).toMatchObject({ $sealed: 1 });
  });

  it("erasing a thread makes its records unreadable, the other thread's stay", async () => {
    const space = freshSpace();
    await s.log.append(space, [turn(space, 'a', 1, `a ${SECRET}`), turn(space, 'b', 1, 'b text')]);
    expect(await s.keys.erase(space, { scope: 'thread', threadId: 'a' })).toBe(1);
    const [a, b] = await s.log.readSpace(space, 0, 10);
    expect(a).toMatchObject({ erased: true, data: null, spaceVersion: 1 });
    expect(a!.metadata.threadId).toBe('a');
    expect(decodeRecord(a!)).toBeNull();
    expect(b!.erased).toBeUndefined();
    expect(JSON.stringify(b!.data)).toContain('b text');
    // The thread can be written again, under a new key.
    await s.log.append(space, [turn(space, 'a', 2, 'a fresh start')]);
    const [, , again] = await s.log.readSpace(space, 0, 10);
    expect(JSON.stringify(again!.data)).toContain('a fresh start');
    // A key deleted is gone from the table.
    const { rows } = await sql`select * from keys.data_keys`.execute(s.db.db);
    expect(rows.length).toBeGreaterThan(0);
  });

  it('erasing one memory event drops it and the graph work only it backed; the rest reads', async () => {
    const space = freshSpace();
    await s.log.append(space, [
      extraction(space, 'a', 'blk_a', [event('evt_1', `one ${SECRET}`), event('evt_2', 'two')]),
      graph(space, 'a', 'blk_a', [['evt_1'], ['evt_1', 'evt_2'], ['evt_2']]),
    ]);
    await s.keys.erase(space, { scope: 'memory_event', eventId: 'evt_1' });
    const [extracted, projected] = await s.log.readSpace(space, 0, 10);
    expect((extracted!.data as { events: { id: string }[] }).events.map((e) => e.id)).toEqual([
      'evt_2',
    ]);
    expect(decodeRecord(extracted!)?.type).toBe('MemoryEventsExtracted');
    const facts = (projected!.data as { operations: { fact: { id: string } }[] }).operations;
    // Backed by evt_1 alone: gone; by evt_1 and evt_2: kept (evt_2 still backs it).
    expect(facts.map((o) => o.fact.id)).toEqual(['gfact_1', 'gfact_2']);
    // Graph work for the erased event that comes later is born erased: its key is not remade.
    await s.log.append(space, [graph(space, 'a', 'blk_a', [['evt_1']])]);
    const [, , late] = await s.log.readSpace(space, 0, 10);
    expect((late!.data as { operations: unknown[] }).operations).toEqual([]);
  });

  it('erasing one event a topic chapter cites erases that chapter only, now and later', async () => {
    const space = freshSpace();
    const chapter = (topicId: string, members: string[], text: string) => ({
      topicId,
      title: `Chapter ${topicId}`,
      description: '',
      category: 'other',
      sourceEventIds: members,
      sections: [{ title: 'Strand', sourceEventIds: members }],
      paragraphs: [{ kind: 'history', text, sourceEventIds: members.slice(-1) }],
      inputFingerprints: {},
    });
    const topics = (chapters: unknown[]) =>
      makeRecord(
        space,
        {
          jobId: 'job_1',
          mode: 'incremental',
          attempt: 1,
          eventIds: ['evt_1', 'evt_2', 'evt_3'],
          candidateTopicIds: [],
          topics: chapters,
          model: { provider: 'test', promptVersion: 'v1' },
        },
        {},
        'TopicsBuilt',
      );
    await s.log.append(space, [
      extraction(space, 'a', 'blk_t', [
        event('evt_1', 'one'),
        event('evt_2', 'two'),
        event('evt_3', 'three'),
      ]),
      topics([
        chapter('topic_00000000000a', ['evt_1', 'evt_2'], `quotes ${SECRET}`),
        chapter('topic_00000000000b', ['evt_3'], 'three alone'),
      ]),
    ]);
    expect(await rawText(s.db, s.schema)).not.toContain(SECRET);
    // Chapter a needs the keys of evt_1 and evt_2; evt_1's is gone.
    await s.keys.erase(space, { scope: 'memory_event', eventId: 'evt_1' });
    const [, built] = await s.log.readSpace(space, 0, 10);
    expect(decodeRecord(built!)?.type).toBe('TopicsBuilt');
    const ids = (r: typeof built) =>
      (r!.data as { topics: { topicId: string }[] }).topics.map((t) => t.topicId);
    expect(ids(built)).toEqual(['topic_00000000000b']);
    // A chapter that still cites the erased event, appended later, is born erased.
    await s.log.append(space, [
      topics([
        chapter('topic_00000000000c', ['evt_3', 'evt_1'], 'late'),
        chapter('topic_00000000000b', ['evt_3'], 'again'),
      ]),
    ]);
    const [, , late] = await s.log.readSpace(space, 0, 10);
    expect(ids(late)).toEqual(['topic_00000000000b']);
  });

  it('what is derived from a block of an erased thread later is born erased', async () => {
    const space = freshSpace();
    await s.log.append(space, [turn(space, 'a', 1, 'some words'), seal(space, 'a', 'blk_late')]);
    await s.keys.erase(space, { scope: 'thread', threadId: 'a' });
    // A model job that read the block before the erasure appends after it.
    await s.log.append(space, [
      extraction(space, 'a', 'blk_late', [event('evt_late', `late ${SECRET}`)]),
    ]);
    const records = await s.log.readSpace(space, 0, 10);
    expect(records.map((r) => r.erased ?? false)).toEqual([true, true, true]);
  });

  it('erasing a space erases every thread and event of it, and nothing of other spaces', async () => {
    const space = freshSpace();
    const other = freshSpace();
    await s.log.append(space, [
      turn(space, 'a', 1, SECRET),
      extraction(space, 'a', 'blk_s', [event('evt_s', SECRET)]),
    ]);
    await s.log.append(other, [turn(other, 'a', 1, 'other words')]);
    await s.keys.erase(space, { scope: 'space' });
    expect((await s.log.readSpace(space, 0, 10)).every((r) => r.erased)).toBe(true);
    expect((await s.log.readSpace(other, 0, 10))[0]!.erased).toBeUndefined();
    // The space can be used again.
    await s.log.append(space, [turn(space, 'c', 1, 'new life')]);
    expect((await s.log.readSpace(space, 0, 10))[2]!.erased).toBeUndefined();
  });

  it("a profile's records made in a thread go with that thread of the other space", async () => {
    const space = freshSpace();
    const stream = { tenantId: space.tenantId, spaceId: `~profile:${space.spaceId}` };
    const origin = { spaceId: space.spaceId, threadId: 'a' };
    const proposed = makeRecord(
      stream,
      {
        profileId: 'p',
        proposalId: 'prop_1',
        field: 'homeCity',
        value: `${SECRET} city`,
        baseRevision: null,
        origin: { ...origin, turnId: 'a-1', afterThreadTurn: 1 },
        proposedAt: '2024-01-01T00:00:00Z',
        reason: `remember: I live in ${SECRET} city`,
      },
      {},
      'ProfileChangeProposed',
    );
    const changed = (threadId: string, value: string) =>
      makeRecord(
        stream,
        {
          profileId: 'p',
          changeId: `chg_${threadId}`,
          field: 'homeCity',
          oldValue: '',
          newValue: value,
          source: 'agent_tool',
          updatedAt: '2024-01-01T00:00:00Z',
          sourceMessageId: `msg_${threadId}_2`,
          origin: { spaceId: space.spaceId, threadId },
          proposalId: 'prop_1',
        },
        {},
        'ProfileFieldChanged',
      );
    await s.log.append(stream, [proposed, changed('a', 'Harbin'), changed('b', 'Dalian')]);
    expect(await rawText(s.db, s.schema)).not.toContain(SECRET);
    expect((await s.log.readSpace(stream, 0, 10))[0]!.data).toEqual(proposed.data);

    await s.keys.erase(space, { scope: 'thread', threadId: 'a' });
    const [p, a, b] = await s.log.readSpace(stream, 0, 10);
    expect(p).toMatchObject({ erased: true, data: null });
    // The setting stays; where it was said reads as nothing.
    expect(a!.data).toMatchObject({
      newValue: 'Harbin',
      sourceMessageId: null,
      origin: null,
      proposalId: null,
    });
    expect(decodeRecord(a!)?.type).toBe('ProfileFieldChanged');
    expect(b!.data).toEqual(changed('b', 'Dalian').data);
  });
});
