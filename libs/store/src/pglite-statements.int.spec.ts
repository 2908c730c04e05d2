import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PGlite, protocol } from '@electric-sql/pglite';
import { PGliteStatements } from './pglite-statements.ts';

// PGlite only: the cache is the embedded session's; a Postgres server is reached through `pg`.
describe('PGliteStatements: named prepared statements on the embedded session (ADR 0020)', () => {
  let client: PGlite;
  const preparedOnServer = async () =>
    (await client.query<{ n: number }>('select count(*)::int as n from pg_prepared_statements'))
      .rows[0]!.n;

  beforeAll(async () => {
    client = await PGlite.create();
    await client.exec(`
      create table items (id text primary key, n int, tags text[], doc jsonb, data bytea,
        at timestamptz, big bigint);`);
  });
  afterAll(async () => {
    await client.close();
  });

  it('gives the same rows as PGlite.query for every parameter and column type, and parses once', async () => {
    const statements = new PGliteStatements(client);
    const insert = `insert into items (id, n, tags, doc, data, at, big)
      values ($1, $2, $3, $4, $5, $6, $7) returning id`;
    const at = new Date('2024-05-01T10:00:00Z');
    const inserted = await statements.query(insert, [
      'a',
      1,
      ['x', 'y,z'],
      { q: [1, 'two'] },
      new Uint8Array([0, 255, 7]),
      at,
      9_007_199_254_740_991n,
    ]);
    expect(inserted.rows).toEqual([{ id: 'a' }]);
    expect(inserted.affectedRows).toBe(1);
    await statements.query(insert, ['b', null, null, null, null, null, null]);
    expect(statements.size).toBe(1);
    expect(await preparedOnServer()).toBe(1);

    const select = 'select * from items where id = any($1) order by id';
    const mine = await statements.query(select, [['a', 'b']]);
    const theirs = await client.query(select, [['a', 'b']]);
    expect(mine.rows).toEqual(theirs.rows);
    expect(mine.fields).toEqual(theirs.fields);
    expect(mine.rows[0]).toMatchObject({
      n: 1,
      tags: ['x', 'y,z'],
      doc: { q: [1, 'two'] },
      data: new Uint8Array([0, 255, 7]),
      at,
    });
    const updated = await statements.query('update items set n = $1 where id <> $2', [5, 'zz']);
    expect(updated.affectedRows).toBe(2);
    expect(updated.rows).toEqual([]);
  });

  it('reads answers larger than one protocol chunk, and leaves PGlite.query and exec working', async () => {
    const statements = new PGliteStatements(client);
    // ~3 MB of rows: the backend hands them over in many chunks, messages split across them.
    const big = await statements.query<{ i: number; s: string }>(
      "select i, repeat(chr(65 + i % 26), 1000 + i % 7) || '✓' as s from generate_series(1, $1::int) as i",
      [3000],
    );
    expect(big.rows).toHaveLength(3000);
    const row = (i: number) => ({
      i,
      s: `${String.fromCharCode(65 + (i % 26)).repeat(1000 + (i % 7))}✓`,
    });
    expect(big.rows).toEqual(Array.from({ length: 3000 }, (_, k) => row(k + 1)));
    // PGlite's own calls after one through the cache get their answers (the raw exchange must
    // not keep PGlite's data callback).
    expect((await client.query<{ v: number }>('select $1::int as v', [7])).rows).toEqual([
      { v: 7 },
    ]);
    expect((await client.exec('select 1 as one; select 2 as two')).map((r) => r.rows)).toEqual([
      [{ one: 1 }],
      [{ two: 2 }],
    ]);
    await statements.query('select $1::int as v', [1]);
    expect((await client.query<{ n: number }>('select 2 as n')).rows).toEqual([{ n: 2 }]);
    await statements.query('select $1::int as v', [1]);
    const raw = await client.execProtocolRaw(protocol.serialize.query('select 3 as n'));
    expect(Buffer.from(raw).toString('latin1')).toContain('n\0');
  });

  it('keeps at most its capacity prepared on the server, closing the least recently used', async () => {
    const statements = new PGliteStatements(client, 2);
    const text = (k: number) => `select $1::int + ${k} as v`;
    const onServer = async () =>
      (
        await client.query<{ statement: string }>(
          "select statement from pg_prepared_statements where statement like 'select $1::int + %' order by statement",
        )
      ).rows.map((r) => r.statement);
    const run = async (k: number) =>
      expect((await statements.query(text(k), [1])).rows).toEqual([{ v: 1 + k }]);
    await run(1);
    await run(2);
    await run(1); // 1 is now the most recently used
    await run(3); // evicts 2; its Close goes out with 3's Bind
    expect(statements.size).toBe(2);
    expect(await onServer()).toEqual([text(1), text(3)]);
    await run(2); // prepared again, evicting 1
    expect(await onServer()).toEqual([text(2), text(3)]);
  });

  it('a schema change drops the prepared statements, so a changed table is read in its new shape', async () => {
    const statements = new PGliteStatements(client);
    await client.exec(`create table shapes (id text primary key)`);
    await statements.query('insert into shapes values ($1)', ['s']);
    const read = 'select * from shapes where id = $1';
    expect((await statements.query(read, ['s'])).rows).toEqual([{ id: 's' }]);
    // Through the cache, as the dialect sends every statement. Postgres refuses to run a
    // prepared `select *` whose result type changed ("cached plan must not change result
    // type"), so the cache deallocates on DDL.
    await statements.query(
      '-- grows\n/* by one column */ alter table shapes add column size int default 3',
      [],
    );
    expect(statements.size).toBe(0);
    expect((await statements.query(read, ['s'])).rows).toEqual([{ id: 's', size: 3 }]);
  });

  it('reports a failed statement with its Postgres code and goes on working', async () => {
    const statements = new PGliteStatements(client);
    await statements.query('insert into items (id) values ($1)', ['dup']);
    const failure = await statements.query('insert into items (id) values ($1)', ['dup']).then(
      () => null,
      (e: unknown) => e as { code?: string; constraint?: string },
    );
    expect(failure).toMatchObject({ code: '23505', constraint: 'items_pkey' });
    // A parse error is not cached.
    await expect(statements.query('selec $1', [1])).rejects.toMatchObject({ code: '42601' });
    expect(statements.size).toBe(1);
    expect(
      (await statements.query('select count(*)::int as n from items where id = $1', ['dup'])).rows,
    ).toEqual([{ n: 1 }]);
  });

  it('a statement prepared inside a rolled-back transaction stays usable', async () => {
    const statements = new PGliteStatements(client);
    await statements.query('begin', []);
    await statements.query('insert into items (id) values ($1)', ['tx']);
    await statements.query('rollback', []);
    expect((await statements.query('select id from items where id = $1', ['tx'])).rows).toEqual([]);
    await statements.query('insert into items (id) values ($1)', ['tx']);
    expect((await statements.query('select id from items where id = $1', ['tx'])).rows).toEqual([
      { id: 'tx' },
    ]);
  });
});
