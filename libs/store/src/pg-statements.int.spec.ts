import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import pg from 'pg';
import { openTestDatabase } from './test-database.ts';
import { PreparedStatementPool, type PreparingClient } from './pg-statements.ts';

const TITLE = 'PreparedStatementPool: named prepared statements on a Postgres server (ADR 0021)';
const onServer = Boolean(process.env.DATABASE_URL);
if (!onServer) console.warn(`SKIPPED: ${TITLE}: needs DATABASE_URL (a Postgres server)`);

// A Postgres server only: the embedded store has its own cache (pglite-statements.ts).
describe.skipIf(!onServer)(TITLE, () => {
  let url: string;
  let close: () => Promise<void>;
  let raw: pg.Pool;
  let pool: PreparedStatementPool;

  beforeAll(async () => {
    const database = await openTestDatabase('pgstatements');
    url = database.url!;
    close = () => database.close();
    await sql`create table items (id text primary key, n int, tags text[], doc jsonb,
      data bytea, at timestamptz)`.execute(database.db);
  });
  afterAll(async () => {
    await raw?.end().catch(() => undefined);
    await close?.();
  });

  /** A pool of one connection, so that every statement meets the same session. */
  const fresh = (capacity?: number) => {
    raw = new pg.Pool({ connectionString: url, max: 1 });
    pool = new PreparedStatementPool(raw, capacity);
    return pool;
  };
  const prepared = async (client: PreparingClient) =>
    (
      await client.query<{ statement: string }>(
        'select statement from pg_prepared_statements where $1::int = 1 and name like $2 order by prepare_time',
        [1, 'sgp%'],
      )
    ).rows.map((r) => r.statement);

  it('gives the same rows as an unnamed statement, and parses a text once per connection', async () => {
    const client = (await fresh().connect()) as PreparingClient;
    try {
      const insert =
        'insert into items (id, n, tags, doc, data, at) values ($1, $2, $3, $4, $5, $6) returning id';
      const at = new Date('2024-05-01T10:00:00Z');
      const first = await client.query(insert, [
        'a',
        1,
        ['x', 'y,z'],
        JSON.stringify({ q: [1, 'two'] }),
        Buffer.from([0, 255, 7]),
        at,
      ]);
      expect(first.rows).toEqual([{ id: 'a' }]);
      expect(first.rowCount).toBe(1);
      await client.query(insert, ['b', null, null, null, null, null]);
      expect(client.size).toBe(1);

      const select = 'select * from items where id = any($1) order by id';
      const mine = await client.query(select, [['a', 'b']]);
      const other = new pg.Client({ connectionString: url });
      await other.connect();
      const theirs = await other.query(select, [['a', 'b']]).finally(() => other.end());
      expect(mine.rows).toEqual(theirs.rows);
      expect(mine.rows[0]).toMatchObject({
        n: 1,
        tags: ['x', 'y,z'],
        doc: { q: [1, 'two'] },
        data: Buffer.from([0, 255, 7]),
        at,
      });
      // The insert and the select are prepared on the server, each once (the probe too).
      const names = await prepared(client);
      expect(names.filter((s) => s === insert)).toHaveLength(1);
      expect(names.filter((s) => s === select)).toHaveLength(1);
      // Without parameters: not prepared.
      await client.query('select 1', []);
      expect((await prepared(client)).includes('select 1')).toBe(false);
    } finally {
      client.release();
      await raw.end();
    }
  });

  it('keeps at most its capacity per connection, deallocating the least recently used', async () => {
    const client = (await fresh(3).connect()) as PreparingClient;
    try {
      const text = (i: number) => `select $1::int + ${i} as v`;
      await client.query(text(1), [0]);
      await client.query(text(2), [0]);
      await client.query(text(1), [0]); // 1 is now the most recently used
      await client.query(text(3), [0]);
      await client.query(text(4), [0]); // evicts 2, not 1
      expect(client.size).toBe(3);
      // The probe statement itself is one more; the evicted one is gone from the server.
      const names = await prepared(client);
      expect(names).toContain(text(1));
      expect(names).not.toContain(text(2));
      expect(names).toContain(text(4));
      // An evicted text is prepared again under a new name and still answers.
      expect((await client.query<{ v: number }>(text(2), [5])).rows).toEqual([{ v: 7 }]);
    } finally {
      client.release();
      await raw.end();
    }
  });

  it('survives a schema change from another session: a stale `select *` is prepared anew', async () => {
    const client = (await fresh().connect()) as PreparingClient;
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    try {
      await other.query('create table shapes (id int primary key, a text)');
      await other.query(`insert into shapes values (1, 'x')`);
      const select = 'select * from shapes where id = $1';
      expect((await client.query(select, [1])).rows).toEqual([{ id: 1, a: 'x' }]);
      // Another session adds a column: Postgres now refuses the prepared statement
      // ("cached plan must not change result type"), as an unnamed-statement run shows next.
      await other.query(`alter table shapes add column b int default 2`);
      await other.query({ name: 'probe', text: select, values: [1] });
      await other.query(`alter table shapes add column c int default 3`);
      await expect(other.query({ name: 'probe', text: select, values: [1] })).rejects.toThrow(
        /cached plan must not change result type/,
      );
      // Outside a transaction the cache drops the statement and runs it again.
      expect((await client.query(select, [1])).rows).toEqual([{ id: 1, a: 'x', b: 2, c: 3 }]);
      // Inside one, the error stands (the transaction is aborted) but the next use is fine.
      await other.query(`alter table shapes add column d int default 4`);
      await client.query('begin', []);
      await expect(client.query(select, [1])).rejects.toThrow(
        /cached plan must not change result type/,
      );
      await client.query('rollback', []);
      expect((await client.query(select, [1])).rows).toEqual([{ id: 1, a: 'x', b: 2, c: 3, d: 4 }]);
    } finally {
      await other.end();
      client.release();
      await raw.end();
    }
  });

  it('a statement deallocated around the cache is prepared anew, and no later transaction is aborted', async () => {
    const client = (await fresh(2).connect()) as PreparingClient;
    try {
      const one = 'select $1::int as v';
      expect((await client.query(one, [1])).rows).toEqual([{ v: 1 }]);
      // DEALLOCATE ALL is not DDL: the cache does not see it, and the next use finds the name gone.
      await client.query('deallocate all', []);
      expect((await client.query(one, [2])).rows).toEqual([{ v: 2 }]);
      // Inside a transaction the error stands; the transaction after it is not disturbed by a
      // DEALLOCATE of the name that is already gone.
      await client.query('deallocate all', []);
      await client.query('begin', []);
      await expect(client.query(one, [3])).rejects.toMatchObject({ code: '26000' });
      await client.query('rollback', []);
      await client.query('begin', []);
      expect((await client.query(one, [4])).rows).toEqual([{ v: 4 }]);
      await client.query('commit', []);

      // A text whose Parse failed is not kept: evicting it later sends no DEALLOCATE, which
      // would fail inside the transaction that happens to follow.
      await expect(client.query('select $1::int from no_such_table', [1])).rejects.toMatchObject({
        code: '42P01',
      });
      await client.query('begin', []);
      await client.query('select $1::int + 1 as v', [1]);
      await client.query('select $1::int + 2 as v', [1]); // capacity 2: evicts `one`
      expect((await client.query<{ v: number }>('select $1::int + 3 as v', [1])).rows).toEqual([
        { v: 4 },
      ]);
      await client.query('commit', []);
      expect(client.size).toBe(2);
      // The evicted statements were deallocated once the connection was outside a transaction.
      await client.query('select 1', []);
      const names = await prepared(client);
      expect(names).not.toContain(one);
      expect(names).toContain('select $1::int + 3 as v');
    } finally {
      client.release();
      await raw.end();
    }
  });

  it('deallocates everything after DDL on its own connection', async () => {
    const client = (await fresh().connect()) as PreparingClient;
    try {
      await client.query('create table own (id int primary key)', []);
      const select = 'select * from own where id = $1';
      await client.query(select, [1]);
      expect(client.size).toBe(1);
      await client.query('alter table own add column extra text', []);
      expect(client.size).toBe(0);
      const count = 'select count(*)::int as n from pg_prepared_statements';
      expect((await client.query<{ n: number }>(count, [])).rows).toEqual([{ n: 0 }]);
      await client.query(`insert into own values (1, 'e')`, []);
      expect((await client.query(select, [1])).rows).toEqual([{ id: 1, extra: 'e' }]);
    } finally {
      client.release();
      await raw.end();
    }
  });
});
