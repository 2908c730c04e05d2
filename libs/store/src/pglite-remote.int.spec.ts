import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { openDatabase, type Database } from './database.ts';
import { connectPGliteSession, hostPGliteSession } from './pglite-remote.ts';

// PGlite only: an embedded session served to another thread through a port (ADR 0030). The two
// ends run in this thread here; the protocol is the same across threads (the served server's
// end-to-end suites run it across them).
describe('an embedded session served through a port (ADR 0030)', () => {
  let owner: Database;
  let host: { close(): Promise<void> };
  let remote: Database;
  let remotePort: MessagePort;

  beforeEach(async () => {
    owner = await openDatabase({ kind: 'pglite' });
    const { port1, port2 } = new MessageChannel();
    host = hostPGliteSession(owner.session!, port1);
    remote = connectPGliteSession(port2, owner.target);
    remotePort = port2;
    await sql`create table t (id int primary key, body bytea, at timestamptz, n int8, tags text[])`.execute(
      owner.db,
    );
  });
  afterEach(async () => {
    await remote.close();
    await host.close();
    await owner.close();
  });

  it('runs statements and transactions on the owner’s session, values intact both ways', async () => {
    const at = new Date('2026-12-03T08:00:00.000Z');
    await remote.db.transaction().execute(async (trx) => {
      await sql`insert into t values (1, ${new Uint8Array([0, 1, 255])}, ${at}, 9007199254740991, ${['a', 'b']})`.execute(
        trx,
      );
      await sql`insert into t values (2, null, null, 2, '{}')`.execute(trx);
    });
    const { rows } = await sql<{
      id: number;
      body: Uint8Array | null;
      at: Date | null;
      n: number;
      tags: string[];
    }>`select * from t order by id`.execute(remote.db);
    expect(rows[0]!.body).toEqual(new Uint8Array([0, 1, 255]));
    expect(rows[0]!.at).toEqual(at);
    expect(Number(rows[0]!.n)).toBe(9007199254740991);
    expect(rows[0]!.tags).toEqual(['a', 'b']);
    expect(rows[1]).toMatchObject({ id: 2, body: null, at: null, tags: [] });
    // The owner sees what the remote committed.
    const seen = await sql<{ n: number }>`select count(*)::int as n from t`.execute(owner.db);
    expect(seen.rows[0]!.n).toBe(2);
    const updated = await sql`update t set n = n + 1`.execute(remote.db);
    expect(updated.numAffectedRows).toBe(2n);
  });

  it('a failed transaction rolls back, and the error keeps its Postgres fields', async () => {
    await sql`insert into t (id) values (1)`.execute(remote.db);
    const failed = remote.db.transaction().execute(async (trx) => {
      await sql`insert into t (id) values (2)`.execute(trx);
      await sql`insert into t (id) values (1)`.execute(trx);
    });
    await expect(failed).rejects.toMatchObject({ code: '23505', constraint: 't_pkey' });
    const { rows } = await sql<{ id: number }>`select id from t order by id`.execute(owner.db);
    expect(rows.map((r) => r.id)).toEqual([1]);
  });

  it('a remote append (foreground) waits for the holder only, ahead of queued background work', async () => {
    // The order the session ran them in, as the rows' serial numbers record it.
    await sql`create table ran (n serial primary key, who text not null)`.execute(owner.db);
    const ran = (who: string) => sql`insert into ran (who) values (${who})`;
    let release!: () => void;
    const holding = new Promise<void>((resolve) => (release = resolve));
    let inside!: () => void;
    const started = new Promise<void>((resolve) => (inside = resolve));
    const holder = owner.db.transaction().execute(async (trx) => {
      await ran('holder').execute(trx);
      inside();
      await holding;
    });
    await started;
    const background = ran('local background').execute(owner.db);
    const remoteBackground = ran('remote background').execute(remote.db);
    // Let both background requests queue before the append arrives.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const append = ran('remote append').execute(remote.foreground!);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(owner.foregroundWaiting!()).toBe(true);
    release();
    await Promise.all([holder, background, remoteBackground, append]);
    const order = (
      await sql<{ who: string }>`select who from ran order by n`.execute(owner.db)
    ).rows.map((r) => r.who);
    expect(order.slice(0, 2)).toEqual(['holder', 'remote append']);
    expect(order.slice(2).sort()).toEqual(['local background', 'remote background']);
  });

  it('a holder that goes away mid-transaction is rolled back and the session freed', async () => {
    let inside!: () => void;
    const started = new Promise<void>((resolve) => (inside = resolve));
    const abandoned = remote.db.transaction().execute(async (trx) => {
      await sql`insert into t (id) values (5)`.execute(trx);
      inside();
      await new Promise(() => {}); // never commits: its thread is gone first
    });
    await started;
    remotePort.close(); // as when the thread holding it ends
    // The owner gets the session back, without the uncommitted row.
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from t`.execute(owner.db);
    expect(rows[0]!.n).toBe(0);
    void abandoned; // its body never ends: the thread it ran on is gone
    // Statements on a closed remote fail at once with a clear error.
    await expect(sql`select 1`.execute(remote.db)).rejects.toThrow(/embedded store/);
  });
});
