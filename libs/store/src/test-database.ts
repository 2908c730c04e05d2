import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { sql } from 'kysely';
import { openDatabase, type AnyDb, type Database } from './database.ts';

/**
 * A fresh, isolated database for one test file: a new database on the server named by
 * DATABASE_URL (dropped on close), or an in-memory PGlite when DATABASE_URL is unset.
 */
export async function openTestDatabase(label = 'test'): Promise<Database & { url?: string }> {
  const base = process.env.DATABASE_URL;
  if (!base) return openDatabase({ kind: 'pglite' });
  const name = `sg_${label.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(base);
  url.pathname = `/${name}`;
  const database = await openDatabase({ kind: 'postgres', url: url.toString(), poolSize: 8 });
  return {
    ...database,
    url: url.toString(),
    async close() {
      await database.close();
      // pool.end() resolves before every socket is gone; a forced drop would then kill live
      // backends mid-close. Wait for them to leave, then drop.
      await waitForNoConnections(base, name);
      const dropper = new pg.Client({ connectionString: base });
      await dropper.connect();
      try {
        await dropper.query(`drop database if exists ${name} with (force)`);
      } finally {
        await dropper.end();
      }
    },
  };
}

/**
 * The most common values that the planner statistics of `schema.table` hold for `column` (empty
 * when the table has none yet): which spaces or kinds an ANALYZE has seen.
 */
export async function statisticsValues(
  db: AnyDb,
  schema: string,
  table: string,
  column: string,
): Promise<string[]> {
  const result = await sql<{ vals: string[] | null }>`
    select most_common_vals::text::text[] as vals from pg_stats
    where schemaname = ${schema} and tablename = ${table} and attname = ${column}`.execute(db);
  return result.rows[0]?.vals ?? [];
}

export function describeBackend(): string {
  return process.env.DATABASE_URL ? 'postgres server' : 'pglite (in memory)';
}

async function waitForNoConnections(base: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  try {
    for (let i = 0; i < 50; i++) {
      const r = await client.query(
        'select count(*)::int as n from pg_stat_activity where datname = $1',
        [name],
      );
      if (r.rows[0].n === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await client.end();
  }
}
