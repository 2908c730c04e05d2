import { Command } from 'commander';
import { ApiKeyStore } from '@stratagate/http';
import { createPostgresLog } from '@stratagate/log';
import { coreProjection, readCheckpoint } from '@stratagate/projector';
import { openDatabase } from '@stratagate/store';
import { loadConfig, type Config } from './config.ts';
import { startNode } from './node.ts';
import { requestReconsolidation } from './reconsolidate.ts';

type Flags = {
  role?: string;
  port?: string;
  host?: string;
  dataDir?: string;
  databaseUrl?: string;
};

function configFrom(flags: Flags): Config {
  return loadConfig(process.env, {
    ...(flags.role ? { STRATAGATE_ROLES: flags.role } : {}),
    ...(flags.port ? { STRATAGATE_PORT: flags.port } : {}),
    ...(flags.host ? { STRATAGATE_HOST: flags.host } : {}),
    ...(flags.dataDir ? { STRATAGATE_DATA_DIR: flags.dataDir } : {}),
    ...(flags.databaseUrl ? { DATABASE_URL: flags.databaseUrl } : {}),
  });
}

async function openStores(config: Config) {
  const database = await openDatabase(
    config.DATABASE_URL
      ? { kind: 'postgres', url: config.DATABASE_URL }
      : { kind: 'pglite', dataDir: config.STRATAGATE_DATA_DIR },
  );
  const log = await createPostgresLog(database);
  return { database, log };
}

const withStoreOptions = (cmd: Command) =>
  cmd
    .option('--data-dir <dir>', 'PGlite data directory (embedded default)')
    .option('--database-url <url>', 'Postgres server instead of the embedded PGlite');

const program = new Command('stratagate').description('StrataGate memory backend');

withStoreOptions(
  program
    .command('serve')
    .description('run roles in this process (all four by default, on the embedded store)')
    .option('--role <roles>', 'all, or a comma list of ingest,projector,consolidator,query')
    .option('--port <port>', 'HTTP port (default 8787)')
    .option('--host <host>', 'HTTP host (default 127.0.0.1)'),
).action(async (flags: Flags) => {
  const config = configFrom(flags);
  const node = await startNode(config);
  const where = config.DATABASE_URL ? 'Postgres server' : `PGlite in ${config.STRATAGATE_DATA_DIR}`;
  console.log(`StrataGate roles [${config.STRATAGATE_ROLES.join(', ')}] running on ${where}`);
  if (node.url) console.log(`HTTP API: ${node.url}  (OpenAPI: ${node.url}/openapi.json)`);
  if (node.createdKey) {
    console.log(
      `\nAPI key for tenant '${config.STRATAGATE_TENANT}' (shown once, stored hashed):\n  ${node.createdKey}\n`,
    );
  }
  const shutdown = async (signal: string) => {
    console.log(`${signal}: shutting down`);
    await node.stop();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
});

const keys = program.command('keys').description('API keys (stored hashed, bound to a tenant)');
withStoreOptions(
  keys
    .command('create')
    .requiredOption('--tenant <id>', 'tenant the key belongs to')
    .option('--label <text>', 'label', 'cli'),
).action(async (flags: Flags & { tenant: string; label: string }) => {
  const { database, log } = await openStores(configFrom(flags));
  const store = new ApiKeyStore(database.db);
  await store.migrate();
  const { key, keyId } = await store.create(flags.tenant, flags.label);
  console.log(`key ${keyId} for tenant '${flags.tenant}' (shown once):\n${key}`);
  await log.close();
  await database.close();
});
withStoreOptions(keys.command('revoke <keyId>')).action(async (keyId: string, flags: Flags) => {
  const { database, log } = await openStores(configFrom(flags));
  const store = new ApiKeyStore(database.db);
  await store.migrate();
  console.log((await store.revoke(keyId)) ? `revoked ${keyId}` : `no active key ${keyId}`);
  await log.close();
  await database.close();
});

withStoreOptions(
  program.command('migrate').description('create or update the log, auth and read-model schemas'),
).action(async (flags: Flags) => {
  const config = configFrom(flags);
  const { database, log } = await openStores(config);
  await new ApiKeyStore(database.db).migrate();
  await coreProjection.migrate(database.db, config.STRATAGATE_READ_MODEL_SCHEMA);
  console.log('migrated');
  await log.close();
  await database.close();
});

withStoreOptions(
  program
    .command('reconsolidate')
    .description(
      'extract a space (or a block range) again with the current extractor; appends records',
    )
    .requiredOption('--tenant <id>', 'tenant of the space')
    .requiredOption('--space <id>', 'memory space')
    .option('--from-sequence <n>', 'first block sequence')
    .option('--to-sequence <n>', 'last block sequence')
    .option('--reason <text>', 'why (recorded)', 'operator re-consolidation'),
).action(
  async (
    flags: Flags & {
      tenant: string;
      space: string;
      fromSequence?: string;
      toSequence?: string;
      reason: string;
    },
  ) => {
    const config = configFrom(flags);
    const { database, log } = await openStores(config);
    const n = await requestReconsolidation({
      db: database.db,
      log,
      schema: config.STRATAGATE_READ_MODEL_SCHEMA,
      space: { tenantId: flags.tenant, spaceId: flags.space },
      fromSequence: flags.fromSequence === undefined ? undefined : Number(flags.fromSequence),
      toSequence: flags.toSequence === undefined ? undefined : Number(flags.toSequence),
      reason: flags.reason,
      onProgress: (done, total) => process.stderr.write(`\rrequested ${done}/${total} blocks`),
    });
    process.stderr.write('\n');
    console.log(`re-consolidation requested for ${n} blocks; running consolidators pick them up`);
    await log.close();
    await database.close();
  },
);

const projections = program.command('projections').description('projection state');
withStoreOptions(projections.command('status')).action(async (flags: Flags) => {
  const config = configFrom(flags);
  const { database, log } = await openStores(config);
  const schema = config.STRATAGATE_READ_MODEL_SCHEMA;
  await coreProjection.migrate(database.db, schema);
  const head = await log.headPosition();
  const at = await readCheckpoint(database.db, schema, coreProjection.name);
  console.log(`${coreProjection.name} (${schema}): position ${at} of ${head}, lag ${head - at}`);
  await log.close();
  await database.close();
});

program.parseAsync(process.argv).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
