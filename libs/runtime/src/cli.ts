import { Command } from 'commander';
import pino from 'pino';
import { ApiKeyStore, injectFetch } from '@stratagate/http';
import { ProfileWriter, SpaceWriterService, WriterSnapshotStore } from '@stratagate/writer';
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
import { createReadStream, createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  eraseContent,
  ExportFileInvalid,
  exportSpace,
  importSpace,
  resumeErasures,
} from '@stratagate/data';
import type { ProjectionProgress } from '@stratagate/ingest';
import { connectPGliteSession, hostPGliteSession, openDatabase } from '@stratagate/store';
import { coreRulesFromConfig, loadConfig, type Config } from './config.ts';
import { projectionBackpressure, startNode, type StrataGateNode } from './node.ts';
import { embeddedTargets, openStores, splitEmbeddedDir } from './stores.ts';
import { placeRoles, startBackgroundThread, type BackgroundThread } from './background-thread.ts';
import { openMessageLog } from './log-backend.ts';
import { dataServicesOf } from './data-services.ts';
import { prepareReadModel } from './read-model.ts';
import { requestReconsolidation } from './reconsolidate.ts';
import { DataDirInUse, lockDataDir, type DataDirLock } from './data-dir-lock.ts';
import { localKeys, remoteKeys, startAdminServer, type KeyOperations } from './keys.ts';
import { CONSOLE_PATH } from './console.ts';

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

/**
 * On the embedded store: takes the data directory for `command`, or fails naming the process
 * that has it (ADR 0033). Null on a Postgres server, which many processes share.
 */
async function claimDataDir(config: Config, command: string): Promise<DataDirLock | null> {
  return config.DATABASE_URL ? null : lockDataDir(config.STRATAGATE_DATA_DIR, command);
}

/** The stores and the log, for a command; `database.close()` closes every store. */
async function openStoresAndLog(config: Config, command: string) {
  const lock = await claimDataDir(config, command);
  let stores;
  try {
    stores = await openStores(config);
  } catch (error) {
    await lock?.release();
    throw error;
  }
  const opened = stores;
  const { log, kafka, keys } = await openMessageLog(config, opened, false, 'stratagate-cli');
  return {
    database: {
      db: opened.database.db,
      close: async () => {
        await opened.close();
        await lock?.release();
      },
    },
    logDatabase: opened.logDatabase,
    log,
    kafka,
    keys,
  };
}

/**
 * Runs `work` on the key store: directly when this process can take the stores, through the
 * serving process that owns an embedded directory otherwise (ADR 0033).
 */
async function withKeys<T>(
  config: Config,
  command: string,
  work: (keys: KeyOperations) => Promise<T>,
): Promise<T> {
  let opened;
  try {
    opened = await openStoresAndLog(config, command);
  } catch (error) {
    if (!(error instanceof DataDirInUse)) throw error;
    if (!error.owner.admin) {
      throw new Error(
        `${error.message} (it is not a server that manages keys${error.owner.command.includes('serve') ? ' yet: wait until it prints its URL' : ''})`,
      );
    }
    console.error(`through the running server (process ${error.owner.pid})`);
    return work(remoteKeys(error.owner.admin));
  }
  const { database, logDatabase, log } = opened;
  try {
    const store = new ApiKeyStore(logDatabase.db);
    await store.migrate();
    return await work(localKeys(store, logDatabase.db));
  } finally {
    await log.close();
    await database.close();
  }
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
  // Before anything opens a store: a second process on the directory stops here (ADR 0033).
  const lock = await claimDataDir(config, 'stratagate serve');
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
  const onProjected = backpressure ? (p: ProjectionProgress) => backpressure.applied(p) : undefined;
  // Readiness here watches the worker's projector through its reports (ADR 0043).
  const projectorClock =
    placed?.background.includes('projector') && config.STRATAGATE_LOG_BACKEND !== 'kafka'
      ? { core: performance.now(), lane: performance.now() }
      : null;
  const onMoved = projectorClock
    ? (what: keyof typeof projectorClock) => (projectorClock[what] = performance.now())
    : undefined;
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
        onMoved,
      );
      started = await startNode(
        { ...config, STRATAGATE_ROLES: placed.main },
        {
          database,
          logDatabase,
          closeDatabases: false,
          backpressure,
          ...(projectorClock ? { projectorClock } : {}),
        },
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
      placed
        ? {
            backpressure,
            logUpkeep: !placed.background.includes('projector'),
            ...(projectorClock ? { projectorClock } : {}),
          }
        : {},
    );
    if (placed) {
      try {
        background = await startBackgroundThread(
          config,
          placed.background,
          onBackgroundExit,
          undefined,
          onProjected,
          onMoved,
        );
      } catch (error) {
        await started.stop();
        throw error;
      }
    }
  }
  const node: StrataGateNode = started;
  // `stratagate keys` from another terminal reaches the keys through this process (ADR 0033).
  const admin = lock ? await startAdminServer(localKeys(node.apiKeys, node.logDatabase.db)) : null;
  if (admin) await lock!.advertise({ url: admin.url, token: admin.token });
  const where = config.DATABASE_URL ? 'Postgres server' : `PGlite in ${config.STRATAGATE_DATA_DIR}`;
  console.log(
    placed
      ? `StrataGate roles [${placed.main.join(', ')}] and, in a background thread, [${placed.background.join(', ')}] running on ${where}`
      : `StrataGate roles [${config.STRATAGATE_ROLES.join(', ')}] running on ${where}`,
  );
  if (node.url) console.log(`HTTP API: ${node.url}  (OpenAPI: ${node.url}/openapi.json)`);
  if (node.url && node.query)
    console.log(`Console: ${node.url}${CONSOLE_PATH}/  (sign in with an API key)`);
  if (node.createdKey) {
    console.log(
      `\nAPI key for tenant '${config.STRATAGATE_TENANT}' (shown once, stored hashed):\n  ${node.createdKey}\n`,
    );
  }
  const shutdown = async (signal: string) => {
    console.log(`${signal}: shutting down`);
    await admin?.close();
    await node.stop();
    await background?.stop();
    await closeStores();
    await lock?.release();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
});

const keys = program
  .command('keys')
  .description(
    'API keys (stored hashed, bound to a tenant); through the running server when one owns the data directory',
  );
withStoreOptions(
  keys
    .command('create')
    .requiredOption('--tenant <id>', 'tenant the key belongs to')
    .option('--label <text>', 'label', 'cli'),
).action(async (flags: Flags & { tenant: string; label: string }) => {
  const { key, keyId } = await withKeys(configFrom(flags), 'stratagate keys create', (k) =>
    k.create(flags.tenant, flags.label),
  );
  console.log(`key ${keyId} for tenant '${flags.tenant}' (shown once):\n${key}`);
});
withStoreOptions(keys.command('revoke <keyId>')).action(async (keyId: string, flags: Flags) => {
  const revoked = await withKeys(configFrom(flags), 'stratagate keys revoke', (k) =>
    k.revoke(keyId),
  );
  console.log(revoked ? `revoked ${keyId}` : `no active key ${keyId}`);
  if (!revoked) process.exitCode = 1;
});
withStoreOptions(keys.command('list').description('key ids, tenants and labels')).action(
  async (flags: Flags) => {
    const list = await withKeys(configFrom(flags), 'stratagate keys list', (k) => k.list());
    for (const k of list) {
      const state = k.revokedAt ? `revoked ${k.revokedAt}` : 'active';
      console.log(`${k.keyId}  ${k.tenant}  ${state}  created ${k.createdAt}  ${k.label}`);
    }
    if (list.length === 0) console.log('no keys');
  },
);

withStoreOptions(
  program
    .command('mcp')
    .description(
      "MCP server over stdio for an agent host: the memory's search, evidence and remember tools, calling the API at --url, or a memory in this process with --in-process",
    )
    .option('--url <url>', 'the API root', process.env.STRATAGATE_URL ?? 'http://127.0.0.1:8787')
    .option('--key <key>', 'an API key (default: STRATAGATE_API_KEY)')
    .option(
      '--in-process',
      'run the memory in this process (the embedded store unless --database-url) instead of calling --url',
    )
    .option('--space <id>', 'the space tools act on when a call names none')
    .option('--thread <id>', 'the thread tools act on when a call names none'),
).action(
  async (
    flags: Flags & {
      url: string;
      key?: string;
      inProcess?: boolean;
      space?: string;
      thread?: string;
    },
  ) => {
    const scope = {
      ...(flags.space ? { spaceId: flags.space } : {}),
      ...(flags.thread ? { threadId: flags.thread } : {}),
    };
    // stdout carries the protocol: nothing else may be written to it.
    const { serveMcpOverStdio } = await import('@stratagate/mcp');
    if (flags.inProcess) {
      await serveInProcessMcp(
        configFrom(flags),
        flags.key ?? process.env.STRATAGATE_API_KEY,
        scope,
      );
      return;
    }
    const apiKey = flags.key ?? process.env.STRATAGATE_API_KEY;
    if (!apiKey) {
      console.error('stratagate mcp: pass --key <api key> or set STRATAGATE_API_KEY');
      process.exit(2);
    }
    await serveMcpOverStdio({ url: flags.url, apiKey, ...scope });
  },
);

/**
 * `stratagate mcp --in-process`: a whole node in this process (all roles, no HTTP listener)
 * whose API the MCP tools reach through `inject`, so an agent host needs no server running. The
 * protocol is answered at once and tool calls wait for the node, since a host gives up on a
 * server that is slow to initialise. The key is checked as on the API; a fresh data directory
 * makes its first key and uses it.
 */
async function serveInProcessMcp(
  config: Config,
  key: string | undefined,
  scope: { spaceId?: string; threadId?: string },
): Promise<void> {
  const { serveMcpOverStdio } = await import('@stratagate/mcp');
  const { StrataGate, NotFoundError } = await import('@stratagate/client');
  const baseUrl = 'http://stratagate.internal';
  const ensureSpace = async (client: InstanceType<typeof StrataGate>, spaceId: string) => {
    try {
      await client.call('getSpaceStatus', { spaceId });
    } catch (error) {
      if (!(error instanceof NotFoundError && error.code === 'space_not_found')) return;
      await client.call('configureSpace', { spaceId, body: { profileId: 'default' } });
    }
  };
  const lock = await claimDataDir(config, 'stratagate mcp --in-process');
  const fail = async (message: string) => {
    console.error(`stratagate mcp --in-process: ${message}`);
    await lock?.release();
    process.exit(2);
  };
  const started = startNode(config, {
    listen: false,
    // Logs go to stderr: stdout is the host's protocol channel.
    logger: pino(
      { level: config.STRATAGATE_LOG_LEVEL, redact: ['req.headers.authorization', '*.apiKey'] },
      pino.destination(2),
    ),
  }).then(async (node) => {
    const apiKey = key ?? node.createdKey;
    if (!apiKey) {
      await node.stop();
      return fail(
        'pass --key <api key> or set STRATAGATE_API_KEY (this store already has keys; `stratagate keys create` makes another)',
      );
    }
    if (!key) {
      console.error(
        `API key for tenant '${config.STRATAGATE_TENANT}' (shown once, stored hashed; pass it with --key next time):\n  ${apiKey}`,
      );
    }
    const fetch = injectFetch(node.http!);
    // The space named with --space is this agent's memory: a fresh store makes it, so the first
    // `remember` does not meet "space not found".
    if (scope.spaceId) await ensureSpace(new StrataGate({ baseUrl, apiKey, fetch }), scope.spaceId);
    return { node, apiKey, fetch };
  });
  started.catch((error: unknown) => fail(`the memory did not start: ${(error as Error).message}`));
  const client = new StrataGate({
    baseUrl,
    // The key the node was given or made; the request carries it once the node is up.
    apiKey: key ?? 'pending',
    fetch: async (input, init) => {
      const request = new Request(input, init);
      const ready = await started;
      if (!ready) throw new Error('the memory did not start');
      request.headers.set('authorization', `Bearer ${ready.apiKey}`);
      return ready.fetch(request);
    },
  });
  try {
    await serveMcpOverStdio({ client, ...scope });
  } finally {
    const ready = await started.catch(() => undefined);
    await ready?.node.stop();
    await lock?.release();
  }
}

withStoreOptions(
  program
    .command('migrate')
    .description('create or update the log, auth, writer-snapshot and read-model schemas'),
).action(async (flags: Flags) => {
  const config = configFrom(flags);
  const { database, logDatabase, log } = await openStoresAndLog(config, 'stratagate migrate');
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
    const { database, log } = await openStoresAndLog(config, 'stratagate reconsolidate');
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
  const { database, log, kafka } = await openStoresAndLog(config, 'stratagate projections status');
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
  const { database, log, kafka } = await openStoresAndLog(config, 'stratagate projections rebuild');
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
  const { database, log } = await openStoresAndLog(config, 'stratagate projections abandon');
  await prepareReadModel(database.db, config);
  const dropped = await abandonBuild(database.db, config.STRATAGATE_READ_MODEL_SCHEMA, name);
  console.log(
    dropped ? `${name}: abandoned and dropped ${dropped}` : `${name}: nothing is building`,
  );
  await log.close();
  await database.close();
});

const spaces = program
  .command('spaces')
  .description("a space's records out to an export file and in again (ADR 0045)");
withStoreOptions(
  spaces
    .command('export')
    .description("write a space's records as an export file (NDJSON with checksums)")
    .requiredOption('--tenant <id>', 'tenant of the space')
    .requiredOption('--space <id>', 'memory space')
    .option('--out <file>', 'file to write (default: standard output)'),
).action(async (flags: Flags & { tenant: string; space: string; out?: string }) => {
  const config = configFrom(flags);
  const { database, log } = await openStoresAndLog(config, 'stratagate spaces export');
  const space = { tenantId: flags.tenant, spaceId: flags.space };
  try {
    if ((await log.spaceVersion(space)) === 0) {
      throw new Error(`space ${flags.tenant}/${flags.space} has no records`);
    }
    const lines = exportSpace(log, space, {
      now: () => new Date(),
      onProgress: ({ done, total }) => printLine(`exported ${done} of ${total} records`),
    });
    await pipeline(Readable.from(lines), flags.out ? createWriteStream(flags.out) : process.stdout);
    if (process.stderr.isTTY) process.stderr.write('\n');
    if (flags.out) console.error(`wrote ${flags.out}`);
  } finally {
    await log.close();
    await database.close();
  }
});
withStoreOptions(
  spaces
    .command('import')
    .description(
      'import an export file into a space (verified whole first; an interrupted import resumes)',
    )
    .requiredOption('--tenant <id>', 'tenant of the target space')
    .requiredOption('--space <id>', 'target memory space (may differ from the source)')
    .requiredOption('--in <file>', 'the export file'),
).action(async (flags: Flags & { tenant: string; space: string; in: string }) => {
  const config = configFrom(flags);
  const { database, log } = await openStoresAndLog(config, 'stratagate spaces import');
  try {
    await prepareReadModel(database.db, config);
    const result = await importSpace({
      log,
      db: database.db,
      target: { tenantId: flags.tenant, spaceId: flags.space },
      open: () => createReadStream(flags.in),
      onProgress: ({ phase, done, total }) =>
        printLine(`${phase} ${done}${total === null ? '' : ` of ${total}`} records`),
    });
    if (process.stderr.isTTY) process.stderr.write('\n');
    const how = result.resumedFrom > 0 ? ` (resumed after ${result.resumedFrom})` : '';
    console.log(
      `imported ${result.records} records of ${result.source.tenantId}/${result.source.spaceId} ` +
        `into ${flags.tenant}/${flags.space}${how}; space version ${result.spaceVersion}`,
    );
  } catch (error) {
    if (error instanceof ExportFileInvalid) {
      throw new Error(`${flags.in}: ${error.message}; nothing was imported`);
    }
    throw error;
  } finally {
    await log.close();
    await database.close();
  }
});

withStoreOptions(
  spaces
    .command('erase')
    .description(
      "erase a space, one of its threads (--thread) or one memory event's content (--event) for good",
    )
    .requiredOption('--tenant <id>', 'tenant of the space')
    .requiredOption('--space <id>', 'memory space')
    .option('--thread <id>', 'erase this thread (session) only')
    .option('--event <id>', "erase this memory event's content only"),
).action(
  async (flags: Flags & { tenant: string; space: string; thread?: string; event?: string }) => {
    if (flags.thread && flags.event) throw new Error('give --thread or --event, not both');
    const config = configFrom(flags);
    const { database, logDatabase, log, kafka, keys } = await openStoresAndLog(
      config,
      'stratagate spaces erase',
    );
    try {
      const { version } = await prepareReadModel(database.db, config);
      const snapshots = new WriterSnapshotStore(logDatabase.db);
      await snapshots.migrate();
      const ctx = dataServicesOf({
        config,
        db: database.db,
        log,
        keys,
        kafka,
        writer: new SpaceWriterService(log, { snapshots }),
        profiles: new ProfileWriter(log),
        snapshots,
        liveSchema: async () => version.liveSchema,
        now: () => new Date(),
      });
      const target = flags.thread
        ? ({ scope: 'thread', threadId: flags.thread } as const)
        : flags.event
          ? ({ scope: 'memory_event', eventId: flags.event } as const)
          : ({ scope: 'space' } as const);
      // Any erasure a crash left unfinished first, then this one.
      const resumed = await resumeErasures(ctx);
      if (resumed > 0) console.error(`carried through ${resumed} unfinished erasures`);
      const erased = await eraseContent(
        ctx,
        { tenantId: flags.tenant, spaceId: flags.space },
        target,
        'cli',
      );
      console.log(
        `erased ${erased.scope} ${erased.threadId ?? erased.eventId ?? erased.spaceId} of ` +
          `${flags.tenant}/${flags.space} (${erased.erasureId}, ${erased.keysErased} keys deleted)`,
      );
    } finally {
      await log.close();
      await database.close();
    }
  },
);

/** One progress line on stderr (rewritten in place on a terminal). */
function printLine(line: string): void {
  if (process.stderr.isTTY) process.stderr.write(`\r\x1b[2K${line}`);
  else process.stderr.write(`${line}\n`);
}

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
