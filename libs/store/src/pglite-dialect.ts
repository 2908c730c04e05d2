import type { PGlite } from '@electric-sql/pglite';
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryResult,
} from 'kysely';
import { PGliteStatements } from './pglite-statements.ts';

/**
 * Kysely dialect for an embedded PGlite instance.
 *
 * PGlite is one Postgres session. Kysely assumes each acquired connection is its own session, so
 * two concurrent transactions on a shared session would interleave their statements. This driver
 * hands out the single session behind a FIFO lock: a transaction holds it from BEGIN to COMMIT,
 * a plain query only for its own round trip. (kysely-pglite's driver has no such lock; see
 * docs/adr/0003-embedded-postgres.md.)
 */
export function pgliteDialect(client: PGlite, options: PGliteDialectOptions = {}): Dialect {
  return postgresDialect(() => new PGliteDriver(client, options));
}

/** A Postgres dialect whose driver is `createDriver`'s (one embedded session, here or elsewhere). */
export function postgresDialect(createDriver: () => Driver): Dialect {
  return {
    createAdapter: () => new PostgresAdapter(),
    createDriver,
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  };
}

/** Transactions on one session: plain BEGIN, COMMIT and ROLLBACK statements. */
export abstract class OneSessionDriver implements Driver {
  abstract init(): Promise<void>;
  abstract acquireConnection(): Promise<DatabaseConnection>;
  abstract releaseConnection(connection: DatabaseConnection): Promise<void>;
  abstract destroy(): Promise<void>;
  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('BEGIN'));
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('COMMIT'));
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('ROLLBACK'));
  }
}

export type SessionPriority = 'foreground' | 'background';

export interface PGliteDialectOptions {
  /** Shared by every dialect over the same PGlite instance; one is created when omitted. */
  lock?: SessionLock;
  /**
   * The session's prepared statements (ADR 0020), shared like `lock`: one is created when
   * omitted.
   */
  statements?: PGliteStatements;
  /** Foreground waiters (acknowledgement paths) go before background ones. Default background. */
  priority?: SessionPriority;
  /** Whether destroying this Kysely instance closes PGlite (only its owner should). Default true. */
  ownsClient?: boolean;
}

/**
 * The one PGlite session, handed out to one holder at a time. Waiters queue in FIFO order within
 * two classes: foreground (appends a caller is waiting to see acknowledged) before background
 * (projection, derivation jobs, reads), so an acknowledgement waits for at most the transaction
 * in progress, never for a queue of background work. Background work still runs whenever no
 * foreground waiter is queued, and a foreground burst is short (appends are group-committed).
 */
export class SessionLock {
  private held = false;
  private readonly waiting: Record<SessionPriority, (() => void)[]> = {
    foreground: [],
    background: [],
  };

  /** Whether a foreground caller is queued for the session (ADR 0023). */
  foregroundWaiting(): boolean {
    return this.waiting.foreground.length > 0;
  }

  async acquire(priority: SessionPriority): Promise<() => void> {
    if (this.held) {
      await new Promise<void>((resolve) => this.waiting[priority].push(resolve));
    }
    this.held = true;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.foreground.shift() ?? this.waiting.background.shift();
      if (next) next();
      else this.held = false;
    };
  }
}

class PGliteDriver extends OneSessionDriver {
  private readonly lock: SessionLock;
  private readonly priority: SessionPriority;
  private readonly statements: PGliteStatements;

  constructor(
    private readonly client: PGlite,
    private readonly options: PGliteDialectOptions,
  ) {
    super();
    this.lock = options.lock ?? new SessionLock();
    this.priority = options.priority ?? 'background';
    this.statements = options.statements ?? new PGliteStatements(client);
  }

  async init(): Promise<void> {
    await this.client.waitReady;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    // PGlite runs each query synchronously in WASM and resolves through microtasks only, so a
    // loop of queries (a projector catching up, a reader polling) would never let the event loop
    // reach I/O: HTTP requests and timers would starve. One macrotask turn per acquisition keeps
    // the process fair at a cost of microseconds per query or transaction.
    await nextTurn();
    const release = await this.lock.acquire(this.priority);
    // Each acquisition gets its own handle, so a release can only free the hold it belongs to.
    const connection = new PGliteConnection(this.statements, this.priority === 'background');
    connection.release = release;
    return connection;
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as PGliteConnection).release?.();
  }
  async destroy(): Promise<void> {
    if (this.options.ownsClient !== false) await this.client.close();
  }
}

/** One turn of the event loop (its poll phase included): a macrotask, not a microtask. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

class PGliteConnection implements DatabaseConnection {
  release: (() => void) | undefined;
  private statementsRun = 0;

  constructor(
    private readonly statements: PGliteStatements,
    /**
     * Whether to let the event loop turn before each statement after the first (ADR 0022):
     * background transactions do, so that requests arriving meanwhile are read and their
     * appends queue as foreground waiters, which get the session as soon as it is released.
     */
    private readonly yieldsBetweenStatements: boolean,
  ) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    if (this.yieldsBetweenStatements && this.statementsRun++ > 0) await nextTurn();
    const result = await this.statements.query<R>(compiled.sql, compiled.parameters);
    const affected = result.affectedRows;
    return {
      rows: result.rows,
      ...(affected !== undefined ? { numAffectedRows: BigInt(affected) } : {}),
    };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('PGlite does not support streaming queries');
  }
}
