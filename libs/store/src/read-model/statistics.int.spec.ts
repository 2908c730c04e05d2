import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { Database } from '../database.ts';
import { describeBackend, openTestDatabase } from '../test-database.ts';
import { migrateReadModel } from './migrate.ts';
import { analyzeGrownTables, readModelKeySizes, vacuumGrownTables } from './statistics.ts';

/*
 * The projector keeps planner statistics on the read model itself (no autovacuum on PGlite): a
 * table is analysed once it grew by half since its last ANALYZE, and not again until it grows.
 * Without statistics every `(tenant_id, space_id, …)` key prefix is estimated at one row and
 * look-ups scan the whole space.
 */
const schema = 'rm_statistics';
let database: Database;

beforeAll(async () => {
  database = await openTestDatabase('statistics');
  await migrateReadModel(database.db, schema);
});
afterAll(async () => {
  await database?.close();
});

const insertTurns = (from: number, to: number) => sql`
  insert into ${sql.id(schema, 'turns')}
    (tenant_id, space_id, turn_id, thread_id, space_turn, thread_turn, occurred_at, block_id,
     position, applied_position)
  select 't', 's', 'turn-' || g, 'thread-' || (g % 7), g, g, '2024-01-01T00:00:00Z', null, g, g
  from generate_series(${from}::int, ${to}::int) g`;

const hasStatistics = async (table: string) => {
  const r = await sql<{ n: number }>`
    select count(*)::int as n from pg_stats where schemaname = ${schema} and tablename = ${table}`.execute(
    database.db,
  );
  return r.rows[0]!.n > 0;
};

describe(`read-model statistics (${describeBackend()})`, () => {
  it('analyses a table once it has grown, inside a transaction, and not again until it grows by half', async () => {
    expect(await analyzeGrownTables(database.db, schema)).toEqual({ analysed: [] });
    await insertTurns(1, 3000).execute(database.db);
    expect(await hasStatistics('turns')).toBe(false);

    const first = await database.db.transaction().execute((trx) => analyzeGrownTables(trx, schema));
    expect(first.analysed.map((a) => a.table)).toEqual(['turns']);
    expect(first.analysed[0]!.pagesBefore).toBe(0);
    expect(await hasStatistics('turns')).toBe(true);

    // Nothing grew: nothing to do.
    expect(await analyzeGrownTables(database.db, schema)).toEqual({ analysed: [] });
    // A little growth is not enough; half again is.
    await insertTurns(3001, 3300).execute(database.db);
    expect(await analyzeGrownTables(database.db, schema)).toEqual({ analysed: [] });
    await insertTurns(3301, 6000).execute(database.db);
    const again = await analyzeGrownTables(database.db, schema);
    expect(again.analysed.map((a) => a.table)).toEqual(['turns']);
    expect(again.analysed[0]!.pagesBefore).toBe(first.analysed[0]!.pages);
  });

  it('gives the planner the real key: a look-up by turn id uses the whole primary key', async () => {
    const plan = await sql<{ 'QUERY PLAN': string }>`
      explain select * from ${sql.id(schema, 'turns')}
      where tenant_id = 't' and space_id = 's' and turn_id = any(array['turn-5', 'turn-9'])`.execute(
      database.db,
    );
    const text = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(text).toMatch(/turns_pkey/);
  });

  it('vacuums tables that grew, so documents are read by an index-only scan without heap fetches', async () => {
    const docs = sql.id(schema, 'search_docs');
    await sql`
      insert into ${docs} (tenant_id, space_id, doc_kind, doc_id, doc_no, length, created_at, status)
      select 't', 's', 'message', 'msg-' || g, g, 10, '2024-05-01', 'sealed'
      from generate_series(0, 19999) g`.execute(database.db);
    await sql`analyze ${docs}`.execute(database.db);
    const heapFetches = async () => {
      // Pinned to the index path; without a visibility map the planner would pick a bitmap scan.
      const plan = await database.db.transaction().execute(async (trx) => {
        await sql`set local enable_bitmapscan = off`.execute(trx);
        await sql`set local enable_seqscan = off`.execute(trx);
        return sql<{ 'QUERY PLAN': string }>`
          explain (analyze, costs off)
          select doc_no from ${docs}
          where tenant_id = 't' and space_id = 's' and doc_kind = 'message' and doc_no < 400`.execute(
          trx,
        );
      });
      const text = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(text).toContain('Index Only Scan');
      return Number(/Heap Fetches: (\d+)/.exec(text)?.[1]);
    };
    expect(await heapFetches()).toBe(400); // the visibility map is not set yet
    // One table per call (each VACUUM is a pause on PGlite): every grown table gets its turn.
    const vacuumed: string[] = [];
    for (let call = 0; call < 20; call++) {
      const now = await vacuumGrownTables(database.db, schema);
      expect(now.length).toBeLessThanOrEqual(1);
      if (now.length === 0) break;
      vacuumed.push(...now);
    }
    expect(vacuumed).toContain('search_docs');
    expect(vacuumed).toContain('turns');
    expect(new Set(vacuumed).size).toBe(vacuumed.length);
    expect(await heapFetches()).toBe(0);

    // A process started after them (a fresh memory of its vacuums) does not vacuum every table
    // again: each is measured against the pages its last VACUUM marked all-visible.
    const restarted = new Map<string, number>();
    expect(await vacuumGrownTables(database.db, schema, { vacuumed: restarted })).toEqual([]);
    // A table that grew by more than a quarter since is vacuumed again.
    await sql`
      insert into ${docs} (tenant_id, space_id, doc_kind, doc_id, doc_no, length, created_at, status)
      select 't', 's', 'message', 'msg-' || g, g, 10, '2024-05-01', 'sealed'
      from generate_series(20000, 29999) g`.execute(database.db);
    expect(await vacuumGrownTables(database.db, schema, { vacuumed: restarted })).toEqual([
      'search_docs',
    ]);
    expect(await vacuumGrownTables(database.db, schema, { vacuumed: restarted })).toEqual([]);
  });
});

describe(`statistics for a space they do not know (${describeBackend()})`, () => {
  const unseen = 'rm_statistics_unseen';
  // The read model's own sizes, one key column at a time.
  const sizes = readModelKeySizes(unseen).filter((k) => k.column === 'space_id');
  const addSpace = async (space: string, turns: number, offset: number) => {
    await sql`
      insert into ${sql.id(unseen, 'spaces')}
        (tenant_id, space_id, block_size, decay_lambda, turn_counter, applied_position)
      values ('t', ${space}, 12, 0.1, ${turns}, 0)`.execute(database.db);
    await sql`
      insert into ${sql.id(unseen, 'turns')}
        (tenant_id, space_id, turn_id, thread_id, space_turn, thread_turn, occurred_at, block_id,
         position, applied_position)
      select 't', ${space}, 'turn-' || g, 'thread-' || (g % 7), g, g, '2024-01-01T00:00:00Z',
        null, ${offset}::int + g, ${offset}::int + g
      from generate_series(1, ${turns}::int) g`.execute(database.db);
  };
  const lookUp = async (space: string) => {
    const plan = await sql<{ 'QUERY PLAN': string }>`
      explain select * from ${sql.id(unseen, 'turns')}
      where tenant_id = 't' and space_id = ${space}
        and turn_id = any(array['turn-5', 'turn-9'])`.execute(database.db);
    return plan.rows.map((r) => r['QUERY PLAN']).join('\n');
  };

  beforeAll(async () => {
    await migrateReadModel(database.db, unseen);
  });

  it('analyses a table once a space it has no statistics for has 1,000 turns, once', async () => {
    await addSpace('s', 6000, 0);
    const first = await analyzeGrownTables(database.db, unseen, { keySizes: sizes });
    expect(first.analysed.map((a) => a.table)).toContain('turns');

    // A new space of 2,000 turns: a third more rows, short of the growth that analyses again.
    await addSpace('s-new', 2000, 10_000);
    expect(await analyzeGrownTables(database.db, unseen)).toEqual({ analysed: [] });
    // The statistics knew only 's', which covered every row: 's-new' is estimated at one row, so
    // its look-up takes the (tenant, space, block) index and filters the turn ids row by row.
    expect(await lookUp('s-new')).toMatch(/turns_by_block/);

    const again = await analyzeGrownTables(database.db, unseen, { keySizes: sizes });
    const turns = again.analysed.find((a) => a.table === 'turns');
    expect(turns?.unseenKey).toEqual({ column: 'space_id', value: 's-new' });
    expect(await lookUp('s-new')).toMatch(/turns_pkey/);
    // Known now: nothing more to do, and a space under 1,000 turns does not count.
    await addSpace('s-small', 900, 20_000);
    expect(await analyzeGrownTables(database.db, unseen, { keySizes: sizes })).toEqual({
      analysed: [],
    });
  });

  it('leaves alone a table whose most common spaces leave rows over', async () => {
    // One most common value at most: 's' and 's-new' no longer both fit, and a space outside
    // the list is estimated at a share of the rows left over, not at one row.
    await sql`alter table ${sql.id(unseen, 'turns')} alter column space_id set statistics 1`.execute(
      database.db,
    );
    await sql`analyze ${sql.id(unseen, 'turns')}`.execute(database.db);
    await addSpace('s-later', 1500, 30_000);
    const outcome = await analyzeGrownTables(database.db, unseen, { keySizes: sizes });
    expect(outcome.analysed.map((a) => a.table)).not.toContain('turns');
  });

  it('analyses the search tables once a kind of document they have no statistics for has 1,000 documents', async () => {
    const docs = sql.id(unseen, 'search_docs');
    const kinds = readModelKeySizes(unseen).filter((k) => k.column === 'doc_kind');
    const addDocs = async (kind: string, n: number) => {
      await sql`
        insert into ${docs} (tenant_id, space_id, doc_kind, doc_id, doc_no, length, created_at, status)
        select 't', 's', ${kind}, ${kind} || '-' || g, g, 10, '2024-05-01', 'sealed'
        from generate_series(0, ${n - 1}::int) g`.execute(database.db);
      await sql`
        insert into ${sql.id(unseen, 'search_doc_numbers')} (tenant_id, space_id, doc_kind, next_no)
        values ('t', 's', ${kind}, ${n})`.execute(database.db);
    };
    const lookUp = async () => {
      const plan = await sql<{ 'QUERY PLAN': string }>`
        explain select * from ${docs}
        where tenant_id = 't' and space_id = 's' and doc_kind = 'event'
          and doc_id = 'event-5'`.execute(database.db);
      return plan.rows.map((r) => r['QUERY PLAN']).join('\n');
    };
    await addDocs('message', 6000);
    await sql`analyze ${docs}`.execute(database.db);
    await addDocs('event', 2000);
    expect(
      (await analyzeGrownTables(database.db, unseen)).analysed.map((a) => a.table),
    ).not.toContain('search_docs');
    // Statistics of messages only: events are estimated at one row, and a look-up by id takes
    // the index by number and filters the ids.
    expect(await lookUp()).toMatch(/search_docs_by_number/);
    const outcome = await analyzeGrownTables(database.db, unseen, { keySizes: kinds });
    expect(outcome.analysed.find((a) => a.table === 'search_docs')?.unseenKey).toEqual({
      column: 'doc_kind',
      value: 'event',
    });
    expect(await lookUp()).toMatch(/search_docs_pkey/);
  });
});
