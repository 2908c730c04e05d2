import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase, type Database, type DatabaseTarget } from '@stratagate/store';
import { databaseTarget, type Config } from './config.ts';

/**
 * Where a node keeps its data. On a Postgres server, and in an embedded data directory from
 * before ADR 0030, both are one database. A new embedded data directory holds two PGlite
 * stores, each one session on one thread: the write side and the read side (ADR 0030).
 */
export interface Stores {
  /** Read models, projection control and checkpoints (and the Kafka log's index). */
  database: Database;
  /** The Postgres-table log, API keys and the writers' snapshots: what ingest writes. */
  logDatabase: Database;
  close(): Promise<void>;
}

/** The two embedded stores of a data directory with the split layout (ADR 0030). */
export function embeddedTargets(dataDir: string): {
  log: DatabaseTarget & { kind: 'pglite' };
  readModel: DatabaseTarget & { kind: 'pglite' };
} {
  return {
    log: { kind: 'pglite', dataDir: join(dataDir, 'log') },
    readModel: { kind: 'pglite', dataDir: join(dataDir, 'read-model') },
  };
}

/**
 * Whether `config` names an embedded data directory with the split layout: any directory that is
 * not itself a PGlite store (one made before ADR 0030 keeps its single database).
 */
export function splitEmbeddedDir(config: Config): string | null {
  if (config.DATABASE_URL) return null;
  const dir = config.STRATAGATE_DATA_DIR;
  return existsSync(join(dir, 'PG_VERSION')) ? null : dir;
}

/** Opens the stores `config` names, each on this thread. */
export async function openStores(config: Config): Promise<Stores> {
  const split = splitEmbeddedDir(config);
  if (!split) {
    const database = await openDatabase(databaseTarget(config));
    return { database, logDatabase: database, close: () => database.close() };
  }
  const targets = embeddedTargets(split);
  const logDatabase = await openDatabase(targets.log);
  let database: Database;
  try {
    database = await openDatabase(targets.readModel);
  } catch (error) {
    await logDatabase.close();
    throw error;
  }
  return {
    database,
    logDatabase,
    close: async () => {
      await database.close();
      await logDatabase.close();
    },
  };
}
