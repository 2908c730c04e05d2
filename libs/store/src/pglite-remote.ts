import type { MessagePort } from 'node:worker_threads';
import { Kysely, type CompiledQuery, type DatabaseConnection, type QueryResult } from 'kysely';
import {
  OneSessionDriver,
  postgresDialect,
  type SessionLock,
  type SessionPriority,
} from './pglite-dialect.ts';
import type { PGliteStatements } from './pglite-statements.ts';
import type { AnyDb, Database, DatabaseTarget } from './database.ts';

/**
 * The one session of an embedded PGlite and what guards it: its lock (one holder at a time,
 * appends first) and its prepared statements. Another thread reaches it through a port
 * (`hostPGliteSession` on the owner's side, `connectPGliteSession` on the other; ADR 0030).
 */
export interface PGliteSession {
  readonly lock: SessionLock;
  readonly statements: PGliteStatements;
}

/** What waits for an answer: taking the session, and a statement on it. */
type Call =
  /** One statement outside a transaction: taken, run and released on the owner's thread. */
  | { op: 'run'; priority: SessionPriority; sql: string; params: readonly unknown[] }
  /** A transaction: the session is held from its BEGIN until the holder releases it. */
  | { op: 'begin'; priority: SessionPriority; sql: string }
  /** A statement of a held transaction; `end` (its COMMIT or ROLLBACK) releases it after. */
  | { op: 'query'; conn: number; sql: string; params: readonly unknown[]; end?: boolean };

type Request = (Call & { id: number }) | { op: 'release'; conn: number };

type Reply =
  | { id: number; ok: true; conn?: number; rows?: unknown[]; affectedRows?: number }
  | { id: number; ok: false; error: RemoteError };

/** An error as it crosses the thread: its message and its own fields (a Postgres `code`…). */
interface RemoteError {
  name: string;
  message: string;
  fields: Record<string, unknown>;
}

/**
 * Serves `session` to the thread at the other end of `port`. Each request takes the lock in its
 * turn (a remote append queues as foreground like a local one). A statement outside a transaction
 * is taken, run and released here in one step: the session is never held while a message crosses
 * to the other thread, whose event loop may be busy. A transaction holds it from BEGIN until the
 * holder releases it. A holder that goes away (the port closes) has its transaction rolled back
 * and the session released, so the owner's own work is never left waiting on a dead thread.
 */
export function hostPGliteSession(
  session: PGliteSession,
  port: MessagePort,
): { close(): Promise<void> } {
  const held = new Map<number, () => void>();
  let nextConn = 0;
  let closed = false;
  const reply = (message: Reply) => {
    if (!closed) port.postMessage(message);
  };
  const fail = (id: number, error: unknown) => reply({ id, ok: false, error: toRemote(error) });
  const answer = (id: number, result: { rows: unknown[]; affectedRows?: number }) =>
    reply({
      id,
      ok: true,
      rows: result.rows,
      ...(result.affectedRows !== undefined ? { affectedRows: result.affectedRows } : {}),
    });
  const releaseAll = async () => {
    for (const [conn, release] of [...held]) {
      held.delete(conn);
      try {
        // Outside a transaction this is only a warning; inside one it undoes what the gone
        // holder began and did not commit.
        await session.statements.query('ROLLBACK', []);
      } finally {
        release();
      }
    }
  };
  port.on('message', (request: Request) => {
    switch (request.op) {
      case 'run':
        session.lock.acquire(request.priority).then(
          async (release) => {
            try {
              answer(request.id, await session.statements.query(request.sql, request.params));
            } catch (error) {
              fail(request.id, error);
            } finally {
              release();
            }
          },
          (error: unknown) => fail(request.id, error),
        );
        return;
      case 'begin':
        session.lock.acquire(request.priority).then(
          async (release) => {
            if (closed) return release();
            try {
              await session.statements.query(request.sql, []);
            } catch (error) {
              release();
              fail(request.id, error);
              return;
            }
            const conn = ++nextConn;
            held.set(conn, release);
            reply({ id: request.id, ok: true, conn });
          },
          (error: unknown) => fail(request.id, error),
        );
        return;
      case 'query':
        if (!held.has(request.conn)) {
          fail(request.id, new Error(`embedded store: connection ${request.conn} is not held`));
          return;
        }
        session.statements
          .query(request.sql, request.params)
          .then(
            (result) => answer(request.id, result),
            (error: unknown) => fail(request.id, error),
          )
          .finally(() => {
            if (!request.end) return;
            const release = held.get(request.conn);
            held.delete(request.conn);
            release?.();
          });
        return;
      case 'release': {
        const release = held.get(request.conn);
        held.delete(request.conn);
        release?.();
        return;
      }
    }
  });
  const closing = new Promise<void>((resolve) => port.once('close', resolve)).then(() => {
    closed = true;
    return releaseAll();
  });
  return {
    async close() {
      port.close();
      await closing;
    },
  };
}

/**
 * A `Database` over an embedded PGlite that another thread of this process owns and serves with
 * `hostPGliteSession`. `target` is the owner's (the log's wake-up channel is named by it). Like
 * the local embedded store it is one session: `concurrentSessions` is false, and `foreground`
 * queues ahead of background holders.
 */
export function connectPGliteSession(port: MessagePort, target: DatabaseTarget): Database {
  const client = new RemoteSessionClient(port);
  const db = new Kysely<unknown>({
    dialect: postgresDialect(() => new RemotePGliteDriver(client, 'background')),
  }) as AnyDb;
  const foreground = new Kysely<unknown>({
    dialect: postgresDialect(() => new RemotePGliteDriver(client, 'foreground')),
  }) as AnyDb;
  return {
    db,
    foreground,
    target,
    capabilities: { concurrentSessions: false },
    close: async () => {
      await foreground.destroy();
      await db.destroy();
      client.close();
    },
  };
}

class RemoteSessionClient {
  private nextId = 0;
  private readonly pending = new Map<
    number,
    { resolve: (reply: Reply & { ok: true }) => void; reject: (error: Error) => void }
  >();
  private gone: Error | null = null;

  constructor(private readonly port: MessagePort) {
    port.on('message', (message: Reply) => {
      const waiter = this.pending.get(message.id);
      if (!waiter) return;
      this.pending.delete(message.id);
      if (message.ok) waiter.resolve(message);
      else waiter.reject(fromRemote(message.error));
    });
    port.once('close', () => this.shut(new Error('embedded store: the owning thread is gone')));
  }

  call(request: Call): Promise<Reply & { ok: true }> {
    if (this.gone) return Promise.reject(this.gone);
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.port.postMessage({ ...request, id });
    });
  }

  send(request: Extract<Request, { op: 'release' }>): void {
    if (!this.gone) this.port.postMessage(request);
  }

  close(): void {
    this.shut(new Error('embedded store: connection closed'));
    this.port.close();
  }

  private shut(error: Error): void {
    if (this.gone) return;
    this.gone = error;
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
  }
}

class RemotePGliteDriver extends OneSessionDriver {
  constructor(
    private readonly client: RemoteSessionClient,
    private readonly priority: SessionPriority,
  ) {
    super();
  }
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    // Nothing is taken yet: the first statement says whether this is a transaction.
    return new RemotePGliteConnection(this.client, this.priority);
  }
  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const { conn } = connection as RemotePGliteConnection;
    if (conn !== null) this.client.send({ op: 'release', conn });
  }
  async destroy(): Promise<void> {}
}

class RemotePGliteConnection implements DatabaseConnection {
  /** The held session's handle, from the transaction's BEGIN on. */
  conn: number | null = null;

  constructor(
    private readonly client: RemoteSessionClient,
    private readonly priority: SessionPriority,
  ) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const { sql, parameters: params } = compiled;
    let result: Reply & { ok: true };
    if (this.conn !== null) {
      // The transaction's end gives the session back on the owner's thread, not a message later.
      const end = params.length === 0 && /^\s*(commit|rollback)\s*$/i.test(sql);
      const conn = this.conn;
      if (end) this.conn = null;
      result = await this.client.call({ op: 'query', conn, sql, params, ...(end ? { end } : {}) });
    } else if (params.length === 0 && /^\s*(begin|start\s+transaction)\b/i.test(sql)) {
      result = await this.client.call({ op: 'begin', priority: this.priority, sql });
      this.conn = result.conn!;
    } else {
      result = await this.client.call({ op: 'run', priority: this.priority, sql, params });
    }
    return {
      rows: (result.rows ?? []) as R[],
      ...(result.affectedRows !== undefined
        ? { numAffectedRows: BigInt(result.affectedRows) }
        : {}),
    };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('PGlite does not support streaming queries');
  }
}

function toRemote(error: unknown): RemoteError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error), fields: {} };
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(error)) {
    if (value === undefined || typeof value === 'function') continue;
    if (typeof value === 'object' && value !== null) continue;
    fields[key] = value;
  }
  return { name: error.name, message: error.message, fields };
}

function fromRemote(remote: RemoteError): Error {
  const error = new Error(remote.message);
  error.name = remote.name;
  return Object.assign(error, remote.fields);
}
