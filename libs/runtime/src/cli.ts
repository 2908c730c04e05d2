import { Command } from 'commander';
import { ApiKeyStore } from '@stratagate/http';
import { WriterSnapshotStore } from '@stratagate/ingest';
import {
  abandonBuild,
  DEFAULT_GROUP_PREFIX,
  kafkaGroupLag,
  kafkaProjectionGroup,
  PROJECTIONS,
  projectionStatus,
  rebuildProjection,
  RebuildAborted,
  releaseBuild,
  type RebuildProgress,
} from '@stratagate/projector';
import { MessageChannel } from 'node:worker_threads';
import { connectPGliteSession, hostPGliteSession, openDatabase } from '@stratagate/store';
import { coreRulesFromConfig, loadConfig, type Config } from './config.ts';
import { projectionBackpressure, startNode, type StrataGateNode } from './node.ts';
import { embeddedTargets, openStores, splitEmbeddedDir } from './stores.ts';
import { placeRoles, startBackgroundThread, type BackgroundThread } from './background-thread.ts';
import { openMessageLog } from './log-backend.ts';
import { prepareReadModel } from './read-model.ts';
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

/** The stores and the log, for a command; `database.close()` closes every store. */
async function openStoresAndLog(config: Config) {
  const stores = await openStores(config);
  const { log, kafka } = await openMessageLog(config, stores, false, 'stratagate-cli');
  return {
    database: { db: stores.database.db, close: () => stores.close() },
    logDatabase: stores.logDatabase,
    log,
    kafka,
  };
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
  // On a server, and on an embedded data directory with the split layout, the projector and the
  // consolidator get a worker thread of their own (ADRs 0016 and 0030).
  const placed = placeRoles(config);
  const split = placed ? splitEmbeddedDir(config) : null;
  // Null until the main thread's roles run (the worker starts first on the embedded store).
  let started: StrataGateNode | null = null;
  let background: BackgroundThread | null = null;
  let closeStores = async () => {};
  // Turns acknowledged here and projected in the worker: its reports bound how far they run
  // ahead (ADR 0031).
  const backpressure =
    placed?.main.includes('ingest') && placed.background.includes('projector')
      ? projectionBackpressure(config)
      : null;
  const onProjected = backpressure ? (p: number) => backpressure.applied(p) : undefined;
  const onBackgroundExit = (reason: string) => {
    console.error(`${reason}; stopping (nothing would project what is acknowledged)`);
    void (started ? started.stop() : Promise.resolve()).finally(() => process.exit(1));
  };
  if (placed && split) {
    // This thread owns the log's store and serves it to the worker, which owns the read models'
    // store and serves it back: each PGlite session stays on the thread that opened it.
    const targets = embeddedTargets(split);
    const logDatabase = await openDatabase(targets.log);
    const log = new MessageChannel();
    const logHost = hostPGliteSession(logDatabase.session!, log.port1);
    const readModel = new MessageChannel();
    const database = connectPGliteSession(readModel.port1, targets.readModel);
    closeStores = async () => {
      await database.close();
      await logHost.close();
      await logDatabase.close();
    };
    try {
      background = await startBackgroundThread(
        config,
        placed.background,
        onBackgroundExit,
        { log: log.port2, readModel: readModel.port2 },
        onProjected,
      );
      started = await startNode(
        { ...config, STRATAGATE_ROLES: placed.main },
        { database, logDatabase, closeDatabases: false, backpressure },
      );
    } catch (error) {
      await background?.stop();
      await closeStores();
      throw error;
    }
  } else {
    started = await startNode(
      placed ? { ...config, STRATAGATE_ROLES: placed.main } : config,
      // The background thread's projector keeps the log's statistics (ADR 0029).
      placed ? { backpressure, logUpkeep: !placed.background.includes('projector') } : {},
    );
    if (placed) {
      try {
        background = await startBackgroundThread(
          config,
          placed.background,
          onBackgroundExit,
          undefined,
          onProjected,
        );
      } catch (error) {
        await started.stop();
        throw error;
      }
    }
  }
  const node: StrataGateNode = started;
  const where = config.DATABASE_URL ? 'Postgres server' : `PGlite in ${config.STRATAGATE_DATA_DIR}`;
  console.log(
    placed
      ? `StrataGate roles [${placed.main.join(', ')}] and, in a background thread, [${placed.background.join(', ')}] running on ${where}`
      : `StrataGate roles [${config.STRATAGATE_ROLES.join(', ')}] running on ${where}`,
  );
  if (node.url) console.log(`HTTP API: ${node.url}  (OpenAPI: ${node.url}/openapi.json)`);
  if (node.createdKey) {
    console.log(
      `\nAPI key for tenant '${config.STRATAGATE_TENANT}' (shown once, stored hashed):\n  ${node.createdKey}\n`,
    );
  }
  const shutdown = async (signal: string) => {
    console.log(`${signal}: shutting down`);
    await node.stop();
    await background?.stop();
    await closeStores();
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
  const { database, logDatabase, log } = await openStoresAndLog(configFrom(flags));
  const store = new ApiKeyStore(logDatabase.db);
  await store.migrate();
  const { key, keyId } = await store.create(flags.tenant, flags.label);
  console.log(`key ${keyId} for tenant '${flags.tenant}' (shown once):\n${key}`);
  await log.close();
  await database.close();
});
withStoreOptions(keys.command('revoke <keyId>')).action(async (keyId: string, flags: Flags) => {
  const { database, logDatabase, log } = await openStoresAndLog(configFrom(flags));
  const store = new ApiKeyStore(logDatabase.db);
  await store.migrate();
  console.log((await store.revoke(keyId)) ? `revoked ${keyId}` : `no active key ${keyId}`);
  await log.close();
  await database.close();
});

withStoreOptions(
  program
    .command('migrate')
    .description('create or update the log, auth, writer-snapshot and read-model schemas'),
).action(async (flags: Flags) => {
  const config = configFrom(flags);
  const { database, logDatabase, log } = await openStoresAndLog(config);
  await new ApiKeyStore(logDatabase.db).migrate();
  await new WriterSnapshotStore(logDatabase.db).migrate();
  const { version } = await prepareReadModel(database.db, config);
  console.log(`migrated (read model ${version.liveSchema})`);
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
    const { database, log } = await openStoresAndLog(config);
    const { version } = await prepareReadModel(database.db, config);
    const n = await requestReconsolidation({
      db: database.db,
      log,
      schema: version.liveSchema,
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

const projections = program
  .command('projections')
  .description('projection state and side-by-side rebuilds (ADR 0009)');
withStoreOptions(
  projections.command('status').description('live and building versions with their lag'),
).action(async (flags: Flags) => {
  const config = configFrom(flags);
  const { database, log, kafka } = await openStoresAndLog(config);
  await prepareReadModel(database.db, config);
  const rules = (r: { codeVersion: number; rules: object }) =>
    `code v${r.codeVersion} ${JSON.stringify(r.rules)}`;
  // Lag counts records up to the oldest sealed block still awaiting raw-search indexing.
  const queued = (n: number) => (n > 0 ? ` (${n} sealed blocks awaiting raw-search indexing)` : '');
  if (kafka) {
    // Kafka orders partitions, not the topic: lag is per partition of the live schema's group.
    for (const p of await projectionStatus(database.db, log, config.STRATAGATE_READ_MODEL_SCHEMA)) {
      const groupId = kafkaProjectionGroup(
        DEFAULT_GROUP_PREFIX,
        kafka.topic,
        p.name,
        p.live.schema,
      );
      const lags = await kafkaGroupLag(kafka, groupId);
      const total = lags.reduce((n, l) => n + l.lag, 0);
      console.log(
        `${p.name} (${p.live.schema}, generation ${p.live.generation}) on topic ${kafka.topic}, ` +
          `group ${groupId}: lag ${total}${queued(p.live.queued)}; ${rules(p.live.rules)}`,
      );
      for (const l of lags) {
        console.log(`  partition ${l.partition}: offset ${l.next} of ${l.end}, lag ${l.lag}`);
      }
      if (p.building) {
        const building = kafkaProjectionGroup(
          DEFAULT_GROUP_PREFIX,
          kafka.topic,
          p.name,
          p.building.schema,
        );
        const behind = (await kafkaGroupLag(kafka, building)).reduce((n, l) => n + l.lag, 0);
        console.log(
          `  building ${p.building.schema} (generation ${p.building.generation}), group ` +
            `${building}: lag ${behind}; ${rules(p.building.rules)}`,
        );
      }
    }
    await log.close();
    await database.close();
    return;
  }
  for (const p of await projectionStatus(database.db, log, config.STRATAGATE_READ_MODEL_SCHEMA)) {
    console.log(
      `${p.name} (${p.live.schema}, generation ${p.live.generation}): position ` +
        `${p.live.position} of ${p.head}${queued(p.live.queued)}, lag ${p.live.lag}; ` +
        rules(p.live.rules),
    );
    if (p.building) {
      const b = p.building;
      const heartbeat =
        b.heartbeatAgeMs === null
          ? 'no builder'
          : `builder seen ${fmtSeconds(b.heartbeatAgeMs)} ago`;
      console.log(
        `  building ${b.schema} (generation ${b.generation}): position ${b.position} of ` +
          `${p.head}${queued(b.queued)}, lag ${b.lag}; ${rules(b.rules)}; ${heartbeat}`,
      );
    }
    if (p.retiredSchema) console.log(`  retired ${p.retiredSchema}: waiting to be dropped`);
  }
  await log.close();
  await database.close();
});

type RebuildFlags = Flags & {
  batchSize: string;
  drainMs: string;
  staleMs: string;
  takeOver?: boolean;
};

/** Rules of each projection as this process is configured (the rebuild's new rules). */
const configuredRules: Record<string, (config: Config) => unknown> = {
  core: coreRulesFromConfig,
};

withStoreOptions(
  projections
    .command('rebuild <name>')
    .description(
      'build the next version from position 0 beside the live one with the configured rules, ' +
        'switch reads once it has caught up, drop the old schema',
    )
    .option('--batch-size <n>', 'records per transaction', '1000')
    .option(
      '--drain-ms <ms>',
      'keep the old schema this long after the switch (> readers refresh + longest request)',
      '10000',
    )
    .option('--stale-ms <ms>', 'take over a build whose builder was silent this long', '30000')
    .option('--take-over', 'take over a build even if its builder reported recently'),
).action(async (name: string, flags: RebuildFlags) => {
  const definition = PROJECTIONS[name];
  if (!definition) {
    throw new Error(`unknown projection '${name}' (known: ${Object.keys(PROJECTIONS).join(', ')})`);
  }
  const config = configFrom(flags);
  const { database, log, kafka } = await openStoresAndLog(config);
  // No prepareReadModel here: this process's rules are the new version's, not the live one's.
  const builderId = `cli-${process.pid}-${Date.now()}`;
  const interrupt = new AbortController();
  process.once('SIGINT', () => interrupt.abort());
  process.once('SIGTERM', () => interrupt.abort());
  const base = config.STRATAGATE_READ_MODEL_SCHEMA;
  try {
    const result = await rebuildProjection({
      db: database.db,
      log,
      base,
      definition,
      rules: configuredRules[name]!(config),
      batchSize: Number(flags.batchSize),
      drainMs: Number(flags.drainMs),
      staleMs: Number(flags.staleMs),
      takeOver: flags.takeOver ?? false,
      builderId,
      ...(kafka ? { kafka } : {}),
      signal: interrupt.signal,
      onProgress: printProgress,
    });
    if (process.stderr.isTTY) process.stderr.write('\n');
    if (result.alreadyLive) {
      console.log(
        `${name}: a previous rebuild had already switched to ${result.liveSchema}` +
          (result.droppedSchema ? `; dropped ${result.droppedSchema}` : ''),
      );
    } else {
      const how = result.resumedFrom > 0 ? ` (resumed at ${result.resumedFrom})` : '';
      console.log(
        `${name}: reads switched to ${result.liveSchema} (generation ${result.generation}) at ` +
          `position ${result.switchedAt}${how}` +
          (result.droppedSchema ? `; dropped ${result.droppedSchema}` : ''),
      );
    }
  } catch (error) {
    if (error instanceof RebuildAborted) {
      // Interrupted, not crashed: let a rerun resume at once instead of waiting for staleness.
      await releaseBuild(database.db, base, name, builderId);
      console.error(`\n${name}: interrupted; run the same command again to resume`);
      process.exitCode = 130;
    } else {
      throw error;
    }
  } finally {
    await log.close();
    await database.close();
  }
});

withStoreOptions(
  projections
    .command('abandon <name>')
    .description('give up the version being built (drops its schema; the live one stays)'),
).action(async (name: string, flags: Flags) => {
  const config = configFrom(flags);
  const { database, log } = await openStoresAndLog(config);
  await prepareReadModel(database.db, config);
  const dropped = await abandonBuild(database.db, config.STRATAGATE_READ_MODEL_SCHEMA, name);
  console.log(
    dropped ? `${name}: abandoned and dropped ${dropped}` : `${name}: nothing is building`,
  );
  await log.close();
  await database.close();
});

function fmtSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** One line per tick on stderr (rewritten in place on a terminal). */
function printProgress(p: RebuildProgress): void {
  const pct = p.head > 0 ? ` (${((100 * p.position) / p.head).toFixed(1)}%)` : '';
  const line =
    `${p.name} → ${p.schema}: ${p.phase} position ${p.position} of ${p.head}${pct}, ` +
    `${Math.round(p.recordsPerSecond)} records/s, lag ${p.head - p.position}, ` +
    `${fmtSeconds(p.elapsedMs)}`;
  if (process.stderr.isTTY) process.stderr.write(`\r\x1b[2K${line}`);
  else process.stderr.write(`${line}\n`);
}

program.parseAsync(process.argv).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
