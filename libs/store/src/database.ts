import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { pgliteDialect, SessionLock } from './pglite-dialect.ts';
import { PGliteStatements } from './pglite-statements.ts';
import { PreparedStatementPool } from './pg-statements.ts';
import type { PGliteSession } from './pglite-remote.ts';

/** Where the data lives: a Postgres server, a PGlite data directory, or PGlite in memory. */
export type DatabaseTarget =
  | {
      kind: 'postgres';
      url: string;
      poolSize?: number;
      /**
       * Statements kept prepared per pooled connection (ADR 0021; default 128). 0 sends every
       * statement unnamed, for a connection pooler that cannot keep prepared statements.
       */
      preparedStatements?: number;
    }
  | { kind: 'pglite'; dataDir?: string };

export type Capabilities = {
  /** More than one session: concurrent transactions really run side by side. */
  concurrentSessions: boolean;
};

// Tables are addressed through per-module schemas, so the Kysely instance is untyped here and each
// module declares its own table types (see *.table.ts).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyDb = Kysely<any>;

export interface Database {
  readonly db: AnyDb;
  /**
   * For latency-critical writes a caller waits on (log appends). On the embedded store it shares
   * the one session but queues ahead of background work; on a server it is `db` itself.
   */
  readonly foreground?: AnyDb;
  /**
   * On the embedded store: whether a foreground caller (an append being acknowledged) is waiting
   * for the one session. Background work that can stop at a boundary of its own (a projector
   * batch between records, an indexing slice between blocks) commits what it has done and lets
   * it go first (ADR 0023). Absent on a server, where sessions run side by side.
   */
  readonly foregroundWaiting?: () => boolean;
  /**
   * The embedded store's one session, on the thread that owns it: what `hostPGliteSession`
   * serves to another thread (ADR 0030). Absent on a server and on a connected remote session.
   */
  readonly session?: PGliteSession;
  readonly target: DatabaseTarget;
  readonly capabilities: Capabilities;
  close(): Promise<void>;
}

// Postgres bigint (int8) arrives as string by default; positions fit in a JS number for centuries.
pg.types.setTypeParser(20, (v) => Number(v));

export async function openDatabase(target: DatabaseTarget): Promise<Database> {
  if (target.kind === 'postgres') {
    const pool = new pg.Pool({
      connectionString: target.url,
      max: target.poolSize ?? 10,
      // Idle connections stay open (pg closes them after 10 s by default). A new connection costs
      // a connect and its prepared statements again (ADR 0021), and after a quiet spell the first
      // requests waited for that: 40–230 ms for the first 0.2 s of 200 turns/s in scratch runs.
      idleTimeoutMillis: 0,
    });
    let closing = false;
    // An idle pooled connection that the server drops (restart, admin shutdown, a test dropping
    // its database) emits 'error' on the pool; without a listener that would crash the process.
    pool.on('error', (error) => {
      if (!closing) console.error(`postgres pool: idle connection lost: ${error.message}`);
    });
    const prepared = target.preparedStatements ?? 128;
    const db = new Kysely<unknown>({
      dialect: new PostgresDialect({
        pool: prepared > 0 ? new PreparedStatementPool(pool, prepared) : pool,
      }),
    }) as AnyDb;
    await sql`select 1`.execute(db);
    return {
      db,
      target,
      capabilities: { concurrentSessions: true },
      close: async () => {
        closing = true;
        await db.destroy();
      },
    };
  }
  if (target.dataDir) await mkdir(target.dataDir, { recursive: true });
  const client = await PGlite.create({
    ...(target.dataDir ? { dataDir: target.dataDir } : {}),
    // Opening an existing directory arms Postgres' startup-progress timer, which re-arms itself
    // every 10 s and which PGlite leaves running after close(): a command that opened a store
    // served before never exited. Nothing here reads those progress lines.
    startParams: [...PGlite.defaultStartParams, '-c', 'log_startup_progress_interval=0'],
  });
  // PGlite returns int8 as bigint-safe number only via a parser; keep the same shape as pg.
  const lock = new SessionLock();
  // One session: one lock and one set of prepared statements for every dialect over it.
  const statements = new PGliteStatements(client);
  const db = new Kysely<unknown>({
    dialect: pgliteDialect(client, { lock, statements }),
  }) as AnyDb;
  const foreground = new Kysely<unknown>({
    dialect: pgliteDialect(client, {
      lock,
      statements,
      priority: 'foreground',
      ownsClient: false,
    }),
  }) as AnyDb;
  return {
    db,
    foreground,
    foregroundWaiting: () => lock.foregroundWaiting(),
    session: { lock, statements },
    target,
    capabilities: { concurrentSessions: false },
    close: async () => {
      await foreground.destroy();
      await db.destroy();
    },
  };
}

/**
 * Runs `migrate` (idempotent DDL: `create … if not exists`) in one transaction that first takes
 * the advisory lock (`namespace`, `key`): processes starting together take turns, since
 * `if not exists` alone races on a server (two creators, one unique violation).
 */
export async function migrateUnderLock(
  db: AnyDb,
  namespace: string,
  key: string,
  migrate: (trx: AnyDb) => Promise<void>,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext(${namespace}), hashtext(${key}))`.execute(trx);
    await migrate(trx);
  });
}
