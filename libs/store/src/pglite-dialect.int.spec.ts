import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { turnCounter } from '../../../test/support/event-loop.ts';
import { openDatabase, type Database } from './database.ts';

// PGlite only: the session lock and its turns exist for the one embedded session.
describe('PGlite dialect: background transactions yield between statements (ADR 0022)', () => {
  let database: Database;

  beforeAll(async () => {
    database = await openDatabase({ kind: 'pglite' });
  });
  afterAll(async () => {
    await database.close();
  });

  /** Turns of the event loop while `run` goes on; `run` can read the count so far. */
  async function turnsDuring(run: (count: () => number) => Promise<number>): Promise<number> {
    const counter = turnCounter();
    try {
      return await run(() => counter.turns);
    } finally {
      counter.stop();
    }
  }

  const transactionOf = (db: Database['db'], statements: number) =>
    turnsDuring((count) =>
      db.transaction().execute(async (trx) => {
        await sql`select 1`.execute(trx);
        const first = count();
        for (let i = 1; i < statements; i++) await sql`select ${i}::int`.execute(trx);
        return count() - first;
      }),
    );

  it('a background transaction lets the event loop turn before each of its later statements', async () => {
    // Without the yield PGlite resolves every statement through microtasks: no turn at all.
    expect(await transactionOf(database.db, 6)).toBeGreaterThanOrEqual(5);
  });

  it('a foreground transaction (an acknowledgement path) runs its statements without yielding', async () => {
    expect(await transactionOf(database.foreground!, 6)).toBe(0);
  });

  it('an append queued while a background transaction yields gets the session before the next background one', async () => {
    const order: string[] = [];
    let started!: () => void;
    const inside = new Promise<void>((resolve) => (started = resolve));
    const first = database.db.transaction().execute(async (trx) => {
      await sql`select 1`.execute(trx);
      started();
      for (let i = 0; i < 5; i++) await sql`select ${i}::int`.execute(trx);
      order.push('background 1');
    });
    await inside;
    // Both arrive while the first holds the session: the foreground one, though later, goes first.
    const second = database.db.transaction().execute(async (trx) => {
      await sql`select 2`.execute(trx);
      order.push('background 2');
    });
    await new Promise((r) => setImmediate(r));
    const append = sql`select 3`.execute(database.foreground!).then(() => {
      order.push('foreground');
    });
    await Promise.all([first, second, append]);
    expect(order).toEqual(['background 1', 'foreground', 'background 2']);
  });

  it('says while an append waits for the session (foregroundWaiting, ADR 0023)', async () => {
    expect(database.foregroundWaiting!()).toBe(false);
    const seen: boolean[] = [];
    let started!: () => void;
    const inside = new Promise<void>((resolve) => (started = resolve));
    const background = database.db.transaction().execute(async (trx) => {
      await sql`select 1`.execute(trx);
      started();
      for (let i = 0; i < 6; i++) {
        await sql`select ${i}::int`.execute(trx);
        seen.push(database.foregroundWaiting!());
      }
    });
    await inside;
    const append = sql`select 2`.execute(database.foreground!);
    await Promise.all([background, append]);
    // Queued a turn or two after it was asked for, and waiting until the background one ended.
    expect(seen.at(-1)).toBe(true);
    expect(database.foregroundWaiting!()).toBe(false);
  });
});
