import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { bm25Rank, docTermFrequencies, type MemoryEventCard } from '@stratagate/domain';
import {
  SEARCH_INDEX_TABLES,
  migrateSearchIndex,
  readSearchStats,
  searchIndex,
  type AnyDb,
  type Database,
} from '@stratagate/store';
import { describeBackend, openTestDatabase } from '@stratagate/store/testing';
import {
  indexEvents,
  indexMessages,
  memoryEventSearchFields,
  rawMessageSearchFields,
  setEventStatus,
  type IndexedEvent,
  type IndexedMessage,
} from './search.projection.ts';

const schema = 'rm_v1';
const space = { tenantId: 't', spaceId: 'search-projection' };

async function dumpIndex(db: AnyDb): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const [table, keys] of Object.entries(SEARCH_INDEX_TABLES)) {
    const rows = await sql<Record<string, unknown>>`
      select * from ${sql.id(schema, table)}
      order by ${sql.join(keys.map((k) => sql.ref(k)))}`.execute(db);
    // Numbers are left out, as in read-model dumps (DUMP_OMITTED_COLUMNS).
    out[table] = rows.rows.map(({ doc_no: _n, ...r }) => r);
  }
  return out;
}

const messages: IndexedMessage[] = Array.from({ length: 120 }, (_, i) => ({
  messageId: `msg_${String(i).padStart(3, '0')}`,
  threadId: i % 3 === 0 ? 'main' : 'side',
  blockId: `blk_${Math.floor(i / 10)}`,
  content:
    i === 42
      ? '李明 will give the school talk on 12 March'
      : `turn ${i} about ${['lunch', 'school', 'budget', 'talk'][i % 4]} and ${['march', 'weather'][i % 2]}`,
  createdAt: `2024-03-${String(1 + (i % 7)).padStart(2, '0')}T10:00:00Z`,
  // Some messages have a speaker, whose name is indexed with the content.
  speaker: i % 5 === 0 ? 'Caroline' : i % 5 === 1 ? 'Melanie' : null,
}));

const events: IndexedEvent[] = Array.from({ length: 12 }, (_, i) => ({
  id: `evt_${String(i).padStart(2, '0')}`,
  threadId: 'main',
  blockId: `blk_${i}`,
  createdAt: `2024-03-${String(1 + i).padStart(2, '0')}T10:00:00Z`,
  fields: [
    { text: `school talk number ${i}`, weight: 4 },
    { text: i % 2 === 0 ? 'planned in the main hall' : 'moved to friday', weight: 3 },
    { text: 'Li Ming', weight: 5 },
  ],
}));

describe(`search index maintenance (${describeBackend()})`, () => {
  let database: Database;

  beforeAll(async () => {
    database = await openTestDatabase('search_projection');
    await migrateSearchIndex(database.db, schema);
  });

  afterAll(async () => {
    await database?.close();
  });

  it('indexes messages and events; a redelivered batch changes nothing', async () => {
    await database.db.transaction().execute(async (trx) => {
      expect(await indexMessages(trx, schema, space, messages.slice(0, 80))).toBe(80);
      expect(await indexEvents(trx, schema, space, events)).toBe(12);
    });
    const before = await dumpIndex(database.db);
    await database.db.transaction().execute(async (trx) => {
      expect(await indexMessages(trx, schema, space, messages.slice(0, 80))).toBe(0);
      expect(await indexEvents(trx, schema, space, events)).toBe(0);
    });
    expect(await dumpIndex(database.db)).toEqual(before);
    // An overlapping batch only adds the new documents.
    expect(await indexMessages(database.db, schema, space, messages.slice(60))).toBe(40);
    expect(await indexMessages(database.db, schema, space, messages)).toBe(0);
    const lengths = messages.map((m) => docTermFrequencies(rawMessageSearchFields(m)).length);
    expect(await readSearchStats(database.db, schema, space, 'message')).toEqual({
      docCount: 120,
      totalLength: lengths.reduce((a, b) => a + b, 0),
    });
    // Postings hold the domain's weighted term frequencies.
    const tf = await sql<{ tf: number }>`
      select tf from ${sql.id(schema, 'search_postings')}
      where doc_kind = 'event' and doc_id = 'evt_03' and term = 'word:li'`.execute(database.db);
    expect(tf.rows).toEqual([{ tf: 5 }]);
  });

  it('search over the maintained index equals the exhaustive reference', async () => {
    for (const query of [
      'school talk',
      'march lunch',
      'budget weather 42',
      '李明',
      'school',
      'what did Caroline say about lunch',
    ]) {
      const actual = await searchIndex(database.db, schema, {
        space,
        kind: 'message',
        query,
        limit: 500,
      });
      const byCreated = new Map(messages.map((m) => [m.messageId, m.createdAt]));
      const expected = bm25Rank(
        query,
        messages.map((m) => ({ id: m.messageId, fields: rawMessageSearchFields(m) })),
      ).sort(
        (a, b) =>
          b.score - a.score ||
          (byCreated.get(b.id) ?? '').localeCompare(byCreated.get(a.id) ?? '') ||
          (a.id < b.id ? -1 : 1),
      );
      expect(actual.map((r) => r.id)).toEqual(expected.map((r) => r.id));
      actual.forEach((r, i) => expect(r.score).toBeCloseTo(expected[i]?.score ?? NaN, 9));
    }
    const zh = await searchIndex(database.db, schema, {
      space,
      kind: 'message',
      query: '李明',
      limit: 6,
    });
    expect(zh.map((h) => h.id)).toEqual(['msg_042']);
  });

  it('forgotten and archived events are never returned; restore brings them back; stats follow', async () => {
    const search = (docIds?: string[]) =>
      searchIndex(database.db, schema, {
        space,
        kind: 'event',
        query: 'school talk li ming',
        limit: 20,
        ...(docIds ? { docIds } : {}),
      });
    expect((await search()).length).toBe(12);
    const statsBefore = await readSearchStats(database.db, schema, space, 'event');
    expect(await setEventStatus(database.db, schema, space, 'evt_01', 'forgotten')).toBe(1);
    expect(await setEventStatus(database.db, schema, space, ['evt_02', 'evt_03'], 'archived')).toBe(
      2,
    );
    expect(await setEventStatus(database.db, schema, space, 'evt_04', 'superseded')).toBe(1);
    const snapshot = await dumpIndex(database.db);
    // Redelivery: same status again changes nothing.
    expect(await setEventStatus(database.db, schema, space, 'evt_01', 'forgotten')).toBe(0);
    expect(await setEventStatus(database.db, schema, space, 'missing', 'forgotten')).toBe(0);
    expect(await dumpIndex(database.db)).toEqual(snapshot);

    const hidden = ['evt_01', 'evt_02', 'evt_03'];
    const hits = await search();
    expect(hits.map((h) => h.id)).toContain('evt_04'); // superseded stays a candidate
    expect(hits.filter((h) => hidden.includes(h.id))).toEqual([]);
    expect(hits.length).toBe(9);
    expect((await search(['evt_01', 'evt_02', 'evt_05'])).map((h) => h.id)).toEqual(['evt_05']);
    // Ranking is over the candidates only: same as the reference over the 9 visible events.
    const visible = events.filter((e) => !hidden.includes(e.id));
    const expected = bm25Rank('school talk li ming', visible);
    expect(hits.map((h) => h.id)).toEqual(expected.map((r) => r.id));
    hits.forEach((h, i) => expect(h.score).toBeCloseTo(expected[i]?.score ?? NaN, 9));

    expect(await readSearchStats(database.db, schema, space, 'event')).toEqual(statsBefore);
    expect(
      (await readSearchStats(database.db, schema, space, 'event', ['active', 'superseded']))
        .docCount,
    ).toBe(9);
    expect(await setEventStatus(database.db, schema, space, hidden, 'active')).toBe(3);
    expect((await search()).length).toBe(12);
    expect(
      (await readSearchStats(database.db, schema, space, 'event', ['active', 'superseded']))
        .docCount,
    ).toBe(12);
  });

  it('memoryEventSearchFields carries the MM-RET-3 weights', () => {
    const card = {
      id: 'e',
      title: 'School talk',
      summary: 'Li Ming gives a talk',
      tags: ['school', 'talk'],
      quotes: ['see you there'],
      sourceMessageIds: ['m'],
      sourceBlockId: 'b',
      scope: 'user',
      criticality: 'routine',
      temporal: {
        participants: ['Li Ming'],
        eventType: 'meeting',
        originalText: 'next Friday',
        happenedStart: '2024-03-12',
        precision: 'day',
        basis: 'explicit',
        status: 'planned',
        supersedesEventIds: [],
        conflictsWithEventIds: [],
        relatedEventIds: [],
      },
      catalogHints: [],
      formedTurn: 3,
    } satisfies MemoryEventCard;
    const { terms } = docTermFrequencies(memoryEventSearchFields(card));
    expect(terms.get('word:school')).toBe(4 + 2);
    expect(terms.get('word:talk')).toBe(4 + 3 + 2);
    expect(terms.get('word:ming')).toBe(3 + 5);
    expect(terms.get('word:meeting')).toBe(5);
    expect(terms.get('word:friday')).toBe(4);
    expect(terms.get('word:there')).toBe(2);
  });
});
