import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type pg from 'pg';
import { DDL } from './pglite-statements.ts';

/**
 * Named prepared statements on the connections of a Postgres server pool (ADR 0021).
 *
 * Kysely sends every statement through `pg` as an unnamed one, so the server parses, analyses
 * and plans its text again on every call. This pool hands Kysely its connections wrapped: a
 * statement with parameters is sent under a name the first time its text is seen on that
 * connection (`pg` then skips the Parse on every later use), and the server may keep a generic
 * plan for it (`plan_cache_mode = auto`).
 *
 * - **Per connection.** Prepared statements live in a server session, so each pooled connection
 *   has its own cache of at most `capacity` texts. The least recently used is deallocated.
 * - **Without parameters** (`begin`, `commit`, DDL, maintenance): sent as they are. After DDL
 *   the connection deallocates all of its statements, as on the embedded store (ADR 0020).
 * - **A schema change from another session** (a migration by a newer release, say) can leave a
 *   prepared `select *` with a stale result shape, which Postgres refuses to run ("cached plan
 *   must not change result type"). The statement is then dropped from the cache and, outside a
 *   transaction, run once more under a new name. Inside a transaction the error stands (the
 *   transaction is aborted); the caller's retry finds the statement gone and prepares it anew.
 */
export class PreparedStatementPool implements PostgresPool {
  private readonly wrapped = new WeakMap<pg.PoolClient, PreparingClient>();

  constructor(
    private readonly pool: pg.Pool,
    /** Statements kept prepared per connection; the least recently used is deallocated. */
    private readonly capacity = 128,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`capacity must be ≥ 1 (got ${capacity})`);
    }
  }

  async connect(): Promise<PostgresPoolClient> {
    const client = await this.pool.connect();
    let wrapper = this.wrapped.get(client);
    if (!wrapper) {
      wrapper = new PreparingClient(client, this.capacity);
      this.wrapped.set(client, wrapper);
    }
    return wrapper;
  }

  end(): Promise<void> {
    return this.pool.end();
  }
}

let caches = 0;

/** One pooled connection with its prepared statements. */
export class PreparingClient implements PostgresPoolClient {
  /** Text → name, least recently used first. */
  private readonly named = new Map<string, string>();
  /** Names dropped from the cache whose DEALLOCATE has not succeeded yet. */
  private stale: string[] = [];
  private counter = 0;
  /** Names are unique per process, so that no two caches' names can meet on one session. */
  private readonly prefix = `sgp${++caches}_`;

  constructor(
    readonly client: pg.PoolClient,
    private readonly capacity: number,
  ) {}

  /** Statements currently prepared on this connection (tests, metrics). */
  get size(): number {
    return this.named.size;
  }

  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(
    sqlOrCursor: string | PostgresCursor<R>,
    parameters?: ReadonlyArray<unknown>,
  ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    if (typeof sqlOrCursor !== 'string') {
      // Cursors (streaming) are submitted as they are.
      return this.client.query(sqlOrCursor as never) as unknown as PostgresCursor<R>;
    }
    return this.run<R>(sqlOrCursor, parameters ?? []);
  }

  release(destroy?: boolean): void {
    this.client.release(destroy);
  }

  private async run<R>(
    text: string,
    params: ReadonlyArray<unknown>,
  ): Promise<PostgresQueryResult<R>> {
    await this.flushStale();
    if (params.length === 0) {
      const result = (await this.client.query(text)) as unknown as PostgresQueryResult<R>;
      if (DDL.test(text)) await this.forgetAll();
      return result;
    }
    const values = [...params];
    try {
      return await this.named_<R>(text, values);
    } catch (error) {
      const stale = staleness(error);
      if (stale === null) throw error;
      this.forget(text, stale === 'gone');
      // Outside a transaction nothing else was undone: run it once more, prepared anew.
      if (this.client.getTransactionStatus() !== 'I') throw error;
      await this.flushStale();
      return await this.named_<R>(text, values);
    }
  }

  private async named_<R>(text: string, values: unknown[]): Promise<PostgresQueryResult<R>> {
    let name = this.named.get(text);
    if (name === undefined) {
      name = `${this.prefix}${++this.counter}`;
      this.named.set(text, name);
      if (this.named.size > this.capacity) {
        const [oldestText] = this.named.keys();
        this.forget(oldestText!);
      }
    } else {
      // Most recently used last: eviction takes the first entry.
      this.named.delete(text);
      this.named.set(text, name);
    }
    try {
      return (await this.client.query({ name, text, values })) as unknown as PostgresQueryResult<R>;
    } catch (error) {
      // A text whose Parse failed (a syntax error, an unknown column) is not on the server: drop
      // it without a DEALLOCATE, so none is ever sent for a name the server does not have.
      if (!isParsed(this.client, name) && this.named.get(text) === name) this.named.delete(text);
      throw error;
    }
  }

  /**
   * Drops a text from the cache. Its statement is deallocated ahead of the next statement sent
   * outside a transaction, unless `gone` (the server no longer has it).
   */
  private forget(text: string, gone = false): void {
    const name = this.named.get(text);
    if (name === undefined) return;
    this.named.delete(text);
    if (gone) forgetParsed(this.client, name);
    else this.stale.push(name);
  }

  /**
   * Deallocates the dropped names, in one statement ahead of the caller's. Only outside a
   * transaction: a DEALLOCATE that failed inside one would abort the caller's transaction (a
   * connection that runs only transactions still gets here before each BEGIN). Dropping happens
   * on eviction and after a schema change, so this round trip is rare.
   */
  private async flushStale(): Promise<void> {
    if (this.stale.length === 0 || this.client.getTransactionStatus() !== 'I') return;
    const names = this.stale;
    this.stale = [];
    for (const name of names) forgetParsed(this.client, name);
    // One DEALLOCATE per name in one simple-protocol call; a name the server no longer has
    // (26000) is nothing to free.
    const sql = names.map((name) => `deallocate "${name}"`).join('; ');
    await this.client.query(sql).catch(async (error: unknown) => {
      if ((error as { code?: string }).code !== '26000') throw error;
      // The names after the one that was missing: one by one.
      for (const name of names) {
        await this.client.query(`deallocate "${name}"`).catch((e: unknown) => {
          if ((e as { code?: string }).code !== '26000') throw e;
        });
      }
    });
  }

  private async forgetAll(): Promise<void> {
    if (this.named.size === 0 && this.stale.length === 0) return;
    for (const name of [...this.named.values(), ...this.stale]) forgetParsed(this.client, name);
    this.named.clear();
    this.stale = [];
    await this.client.query('deallocate all');
  }
}

/**
 * Whether `error` says the prepared statement cannot be used again: `changed` when a schema
 * change altered its result shape (Postgres refuses to run it), `gone` when the session no longer
 * has it (a DEALLOCATE or DISCARD sent around this cache); null for any other error.
 */
function staleness(error: unknown): 'changed' | 'gone' | null {
  const e = error as { code?: string; message?: string };
  if (e.code === '0A000' && /cached plan must not change result type/.test(e.message ?? '')) {
    return 'changed';
  }
  return e.code === '26000' ? 'gone' : null;
}

/** Whether `pg` has seen the server parse `name` on this connection. */
function isParsed(client: pg.PoolClient, name: string): boolean {
  const connection = (client as unknown as { connection?: { parsedStatements?: object } })
    .connection;
  return Boolean(connection?.parsedStatements && name in connection.parsedStatements);
}

/**
 * `pg` remembers per connection which names it has parsed, and skips the Parse for them. A
 * deallocated name must leave that record too, or its map would grow with every name ever used.
 * (Names are never reused, so a stale record could not send a wrong statement.)
 */
function forgetParsed(client: pg.PoolClient, name: string): void {
  const connection = (
    client as unknown as { connection?: { parsedStatements?: Record<string, string> } }
  ).connection;
  if (connection?.parsedStatements) delete connection.parsedStatements[name];
}
