import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import {
  eventWeight,
  fuzzyMatch,
  matchesAllParticipants,
  structuredOrder,
  type Criticality,
} from '@stratagate/domain';
import type { Database } from '../database.ts';
import { migrateReadModel } from '../read-model/migrate.ts';
import type { MemoryEventStatus } from '../read-model/tables.ts';
import { describeBackend, openTestDatabase } from '../test-database.ts';
import { prng } from '../test-random.ts';
import { filteredEventIds, type EventPool } from './event-filters.ts';

const schema = 'rm_filters';
const space = { tenantId: 't', spaceId: 'filters' };

interface Ev {
  id: string;
  pool: EventPool;
  status: MemoryEventStatus;
  criticality: Criticality;
  mentionCount: number;
  lastAdoptedTurn: number;
  pinned: boolean;
  forcedCap: number | null;
  participants: string[];
  eventType: string;
  title: string;
  summary: string;
  tags: string[];
  happenedStart: string | null;
  happenedEnd: string | null;
  mentionedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

const rand = prng(7);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
const NAMES = ['Li Ming', 'Caroline', 'Melanie', 'ＢＯＢ', 'Anna  Lee', '李明', 'Jon'];
const TYPES = ['meeting', 'decision', 'plan', 'other', 'migration'];
const WORDS = ['school', 'talk', 'Budget', 'release', 'café', '学校', 'deploy', 'lunch'];
const day = (d: number) => `2023-06-${String(1 + (d % 28)).padStart(2, '0')}`;

const events: Ev[] = Array.from({ length: 120 }, (_, i) => {
  const start = rand() < 0.7 ? day(Math.floor(rand() * 28)) : null;
  return {
    id: `evt_${String(i).padStart(3, '0')}`,
    pool: i % 5 === 0 ? 'agent' : 'extracted',
    status: pick(['active', 'active', 'active', 'superseded', 'forgotten', 'archived'] as const),
    criticality: pick(['routine', 'routine', 'preference', 'identity', 'safety'] as const),
    mentionCount: 1 + Math.floor(rand() * 4),
    lastAdoptedTurn: Math.floor(rand() * 200),
    pinned: rand() < 0.1,
    forcedCap: rand() < 0.15 ? 0.1 : null,
    participants: Array.from({ length: Math.floor(rand() * 3) }, () => pick(NAMES)),
    eventType: pick(TYPES),
    title: `${pick(WORDS)} ${pick(WORDS)}`,
    summary: `${pick(WORDS)} ${pick(WORDS)} ${pick(WORDS)}`,
    tags: Array.from({ length: Math.floor(rand() * 3) }, () => pick(WORDS)),
    happenedStart: start && rand() < 0.8 ? `${start}T09:00:00Z` : start,
    happenedEnd: start && rand() < 0.3 ? `${day(20 + Math.floor(rand() * 8))}T18:00:00Z` : null,
    mentionedAt: rand() < 0.5 ? `2023-07-${String(1 + (i % 9)).padStart(2, '0')}T10:00:00Z` : null,
    createdAt: `2023-08-01T10:00:${String(i % 60).padStart(2, '0')}.000Z`,
    updatedAt: `2023-08-02T10:00:${String(i % 7).padStart(2, '0')}.000Z`,
  };
});

const searchable = (e: Ev) => e.status === 'active' || e.status === 'superseded';
const ms = (iso: string) => Date.parse(iso);

describe(`structured event filters in SQL (${describeBackend()})`, () => {
  let database: Database;
  beforeAll(async () => {
    database = await openTestDatabase('event_filters');
    await migrateReadModel(database.db, schema);
    await database.db
      .withSchema(schema)
      .insertInto('memory_events' as never)
      .values(
        events.map((e) => ({
          tenant_id: space.tenantId,
          space_id: space.spaceId,
          event_id: e.id,
          source_block_id: 'blk_1',
          thread_id: 'main',
          title: e.title,
          summary: e.summary,
          tags: JSON.stringify(e.tags),
          quotes: '[]',
          source_message_ids: '["m1"]',
          scope: 'user',
          criticality: e.criticality,
          event_type: e.eventType,
          temporal: JSON.stringify({ participants: e.participants, eventType: e.eventType }),
          mentioned_at: e.mentionedAt,
          happened_start: e.happenedStart,
          happened_end: e.happenedEnd,
          status: e.status,
          superseded_by: null,
          mention_count: e.mentionCount,
          last_adopted_turn: e.lastAdoptedTurn,
          pinned: e.pinned,
          forced_cap: e.forcedCap,
          catalog_hints: '[]',
          formed_turn: 0,
          block_sequence: 1,
          created_at: e.createdAt,
          updated_at: e.updatedAt,
          record_position: 1,
          applied_position: 1,
          pool: e.pool,
        })) as never,
      )
      .execute();
  });
  afterAll(async () => {
    await database?.close();
  });

  const query = (
    pool: EventPool,
    filters: Parameters<typeof filteredEventIds>[2]['filters'],
    order: Parameters<typeof filteredEventIds>[2]['order'],
    eventIds?: string[],
  ) =>
    filteredEventIds(database.db, schema, {
      space,
      pool,
      filters,
      order,
      limit: 1000,
      ...(eventIds ? { eventIds } : {}),
    });

  const structured = (es: Ev[], intent: 'first' | 'latest' | undefined, currentTurn: number) =>
    structuredOrder(
      es.map((e) => ({
        id: e.id,
        chronology: ms(e.happenedStart ?? e.mentionedAt ?? e.createdAt),
        updatedAt: ms(e.updatedAt),
        effectiveWeight: eventWeight({
          criticality: e.criticality,
          status: e.status,
          mentionCount: e.mentionCount,
          lastAdoptedTurn: e.lastAdoptedTurn,
          currentTurn,
          pinned: e.pinned,
          forcedCap: e.forcedCap,
        }),
      })),
      intent,
    );

  it('orders by the MM-WGT-1 weight exactly as eventWeight does', async () => {
    for (const currentTurn of [0, 57, 200, 1000]) {
      for (const pool of ['extracted', 'agent'] as const) {
        const expected = structured(
          events.filter((e) => e.pool === pool && searchable(e)),
          undefined,
          currentTurn,
        );
        expect(await query(pool, {}, { intent: 'weight', currentTurn })).toEqual(expected);
      }
    }
  });

  it('orders by chronology for first and latest', async () => {
    const pool = events.filter((e) => e.pool === 'extracted' && searchable(e));
    for (const intent of ['first', 'latest'] as const) {
      expect(await query('extracted', {}, { intent })).toEqual(structured(pool, intent, 0));
    }
  });

  it('matches participants and event types as the domain fuzzy match does', async () => {
    const cases: { participants?: string[]; eventType?: string }[] = [
      { participants: ['li'] },
      { participants: ['bob'] },
      { participants: ['anna lee', 'caroline'] },
      { participants: ['李'] },
      { participants: ['nobody'] },
      { eventType: 'meet' },
      { eventType: 'CAFE' },
      { eventType: 'café' },
      { eventType: '学校' },
      { eventType: 'budget', participants: ['jon'] },
    ];
    for (const filters of cases) {
      const expected = structured(
        events.filter(
          (e) =>
            e.pool === 'extracted' &&
            searchable(e) &&
            (!filters.participants ||
              matchesAllParticipants(filters.participants, e.participants)) &&
            (!filters.eventType ||
              [e.eventType, e.title, e.summary, ...e.tags].some((v) =>
                fuzzyMatch(filters.eventType!, v),
              )),
        ),
        undefined,
        90,
      );
      const actual = await query('extracted', filters, { intent: 'weight', currentTurn: 90 });
      expect(actual, JSON.stringify(filters)).toEqual(expected);
    }
    // The cases are not vacuous: most of them match something.
    expect(
      (await query('extracted', { participants: ['li'] }, { intent: 'first' })).length,
    ).toBeGreaterThan(0);
  });

  it('keeps events whose occurrence overlaps the requested range', async () => {
    const from = '2023-06-10T00:00:00Z';
    const to = '2023-06-15T23:59:59Z';
    const expected = structured(
      events.filter((e) => {
        if (e.pool !== 'extracted' || !searchable(e) || e.happenedStart === null) return false;
        const start = ms(e.happenedStart);
        const end = ms(e.happenedEnd ?? e.happenedStart);
        return end >= ms(from) && start <= ms(to);
      }),
      'first',
      0,
    );
    expect(expected.length).toBeGreaterThan(0);
    expect(
      await query('extracted', { happenedFrom: from, happenedTo: to }, { intent: 'first' }),
    ).toEqual(expected);
  });

  it('applies the eventIds scope before anything else, and never returns forgotten or archived', async () => {
    const ids = events.slice(0, 40).map((e) => e.id);
    const got = await query('extracted', {}, { intent: 'latest' }, ids);
    const allowed = new Set(ids);
    expect(got.every((id) => allowed.has(id))).toBe(true);
    const byId = new Map(events.map((e) => [e.id, e]));
    expect(got.every((id) => searchable(byId.get(id)!))).toBe(true);
    expect(await query('extracted', {}, { intent: 'latest' }, [])).toEqual([]);
    // Sanity: the table holds what the test inserted.
    const n = await sql<{
      n: number;
    }>`select count(*)::int as n from ${sql.id(schema, 'memory_events')}`.execute(database.db);
    expect(n.rows[0]?.n).toBe(events.length);
  });
});
