import pino, { type Logger } from 'pino';
import { spaceKey, type SpaceRef } from '@stratagate/domain';
import { createConsolidator, type Consolidator } from '@stratagate/consolidator';
import { ApiKeyStore, buildHttpApp, type HttpApp, type TypedApp } from '@stratagate/http';
import { ingestPlugin, ProjectionBackpressure, type ProjectionProgress } from '@stratagate/ingest';
import type { MessageLog } from '@stratagate/log';
import {
  createOfflineProvider,
  createOfflineProviderThread,
  ModelError,
  createOpenAiCompatibleProvider,
  loadModelConfigFromEnv,
  type ModelPort,
  type ThreadedModelPort,
} from '@stratagate/model';
import {
  coreProjectionDefinition,
  createLiveSchema,
  createKafkaProjector,
  createProjector,
  liveTarget,
  readCheckpoint,
  appliedThrough,
  messageIndexHolds,
  messageIndexQueued,
  spaceAppliedThrough,
  DEFAULT_GROUP_PREFIX,
  kafkaProjectionGroup,
  type KafkaProjector,
  type KafkaSource,
  type LiveSchema,
  type Projector,
} from '@stratagate/projector';
import { queryPlugin, type QueryServices } from '@stratagate/query';
import { mcpPlugin } from '@stratagate/mcp';
import { dataPlugin, resumeErasures, type DataServices } from '@stratagate/data';
import { PostingCache, type Database } from '@stratagate/store';
import {
  initTelemetry,
  observeSearchCache,
  serviceNameFor,
  traceLogMixin,
} from '@stratagate/telemetry';
import { ProfileWriter, SpaceWriterService, WriterSnapshotStore } from '@stratagate/writer';
import type { Config } from './config.ts';
import { offlineModelThread } from './background-thread.ts';
import { openMessageLog } from './log-backend.ts';
import { dataServicesOf } from './data-services.ts';
import { prepareReadModel } from './read-model.ts';
import { landingPlugin } from './landing.ts';
import { CONSOLE_PATH, consolePlugin } from './console.ts';
import { openStores, type Stores } from './stores.ts';

export interface StrataGateNode {
  config: Config;
  /** Read models (and everything, where there is one database). */
  database: Database;
  /** The log's database: `database` itself except on the embedded split layout (ADR 0030). */
  logDatabase: Database;
  log: MessageLog;
  apiKeys: ApiKeyStore;
  /** Which read-model schema is live (the control table, cached; ADR 0009). */
  readModel: LiveSchema;
  /** The projector on the Postgres-table log (it reads the log in one global order). */
  projector: Projector | null;
  /** The projector on the Kafka log: a member of the live schema's consumer group. */
  kafkaProjector: KafkaProjector | null;
  /** The topic and consumer checkpoints when the log is Kafka (rebuilds, status). */
  kafka: KafkaSource | null;
  consolidator: Consolidator | null;
  /** The consolidator's model (the offline provider's thread, when it has one; ADR 0022). */
  model: ModelPort;
  http: HttpApp | null;
  /** Base URL once listening. */
  url: string | null;
  /** A key created on this start (embedded first start); shown once, never stored in clear. */
  createdKey: string | null;
  /** The query role's posting cache (ADR 0018); null without the query role. */
  postingCache: PostingCache | null;
  /** What holds turns back while the projection lags (ADR 0031); null where nothing does. */
  backpressure: ProjectionBackpressure | null;
  /** What the query service's use cases run on (tests call them directly); null without it. */
  query: QueryServices | null;
  stop(): Promise<void>;
}

/** When a projector and its indexing lane last moved (`performance.now()` of this thread). */
export interface ProjectorClock {
  core: number;
  lane: number;
}

export interface NodeOptions {
  logger?: Logger | false;
  model?: ModelPort;
  now?: () => Date;
  /** Skip listen (tests use app.inject). */
  listen?: boolean;
  /** Create a first key when none exists (the embedded default does). */
  bootstrapKey?: boolean;
  /** An already open database (tests); otherwise opened from the config. */
  database?: Database;
  /**
   * With `database`: the log's own database, when the read models are elsewhere (ADR 0030).
   * Default: `database`.
   */
  logDatabase?: Database;
  /** Whether `stop()` closes the databases (default true); their owner closes them otherwise. */
  closeDatabases?: boolean;
  /** Install OpenTelemetry for this process (default true). A no-op when something already did. */
  telemetry?: boolean;
  /**
   * For the ingest role when the projector runs elsewhere in this process (the background
   * thread): the gate its reports feed (ADR 0031). Where the node runs both roles it makes its own.
   */
  backpressure?: ProjectionBackpressure | null;
  /**
   * For the projector when ingest runs elsewhere in this process: called with where the read
   * model is complete after each batch and indexing slice (ADR 0031, ADR 0043).
   */
  onProjected?: (progress: ProjectionProgress) => void;
  /**
   * For the projector when HTTP is served elsewhere in this process: called when the projector
   * (`core`: a batch committed or found nothing to do) or its indexing lane (`lane`: a slice
   * committed) moved, for readiness there (ADR 0043).
   */
  onMoved?: (what: keyof ProjectorClock) => void;
  /**
   * Where HTTP is served and the projector runs elsewhere in this process (the background
   * thread): when it last moved, as its `onMoved` reports set it. Readiness reads it (ADR 0043).
   */
  projectorClock?: ProjectorClock;
  /**
   * Whether a node that runs no projector keeps the log's planner statistics itself, once a second
   * (ADR 0029; default true). False when a projector elsewhere in this process keeps them (the
   * background thread on a server): otherwise two checks of the same table at once both find it
   * grown and run two ANALYZEs side by side.
   */
  logUpkeep?: boolean;
  /** The built console's folder (default: apps/console/dist in this checkout). */
  consoleDir?: string;
}

/**
 * The gate that bounds the projection lag of the turns a process appends (ADR 0031), or null when
 * it is off (STRATAGATE_MAX_PROJECTION_LAG_MS=0) or the log is Kafka, whose lag is per partition.
 */
export function projectionBackpressure(config: Config): ProjectionBackpressure | null {
  if (config.STRATAGATE_MAX_PROJECTION_LAG_MS === 0) return null;
  if (config.STRATAGATE_LOG_BACKEND === 'kafka') return null;
  return new ProjectionBackpressure({
    maxLagMs: config.STRATAGATE_MAX_PROJECTION_LAG_MS,
    maxWaitMs: config.STRATAGATE_BACKPRESSURE_MAX_WAIT_MS,
  });
}

/** Wires the roles named in the config into one process: all four for `npm start`. */
export async function startNode(
  config: Config,
  options: NodeOptions = {},
): Promise<StrataGateNode> {
  const shutdownTelemetry =
    options.telemetry === false
      ? async () => {}
      : initTelemetry({
          serviceName:
            config.STRATAGATE_OTEL_SERVICE_NAME ?? serviceNameFor(config.STRATAGATE_ROLES),
          otlpEndpoint: config.STRATAGATE_OTLP_ENDPOINT,
          metricExportIntervalMs: config.STRATAGATE_OTLP_METRICS_INTERVAL_MS,
        });
  const logger =
    options.logger === false
      ? false
      : (options.logger ??
        pino({
          level: config.STRATAGATE_LOG_LEVEL,
          redact: ['req.headers.authorization', '*.apiKey'],
          mixin: traceLogMixin,
        }));
  const now = options.now ?? (() => new Date());
  const stores: Stores = options.database
    ? {
        database: options.database,
        logDatabase: options.logDatabase ?? options.database,
        close: async () => {
          await options.database!.close();
          if (options.logDatabase && options.logDatabase !== options.database) {
            await options.logDatabase.close();
          }
        },
      }
    : await openStores(config);
  const { database, logDatabase } = stores;
  const roles = new Set(config.STRATAGATE_ROLES);
  const opened = await openMessageLog(config, stores, logger, `stratagate-${[...roles].join('-')}`);
  const { log, kafka } = opened;
  // Keys and the writers' snapshots belong to the write side, beside the log (ADR 0030).
  const apiKeys = new ApiKeyStore(logDatabase.db);
  await apiKeys.migrate();
  const writerSnapshots = new WriterSnapshotStore(logDatabase.db);
  await writerSnapshots.migrate();
  const prepared = await prepareReadModel(database.db, config);
  if (!prepared.configMatches && logger) {
    logger.warn(
      { live: prepared.version.liveSchema, rules: prepared.version.liveRules },
      'projection rules in the configuration differ from the live read model; ' +
        '`stratagate projections rebuild core` applies them',
    );
  }

  let createdKey: string | null = null;
  if (config.STRATAGATE_API_KEY) {
    await apiKeys.create(
      config.STRATAGATE_TENANT,
      'from STRATAGATE_API_KEY',
      config.STRATAGATE_API_KEY,
    );
  } else if (options.bootstrapKey !== false && (await apiKeys.count()) === 0) {
    createdKey = (await apiKeys.create(config.STRATAGATE_TENANT, 'first start')).key;
  }

  const base = config.STRATAGATE_READ_MODEL_SCHEMA;
  // Readers resolve the live schema from the control table, re-checked at most every refresh
  // interval; the projector re-resolves on every pass and confirms it in every batch.
  const readModel = createLiveSchema({
    db: database.db,
    base,
    name: coreProjectionDefinition.name,
    refreshMs: config.STRATAGATE_PROJECTION_REFRESH_MS,
    initial: prepared.version.liveSchema,
  });
  const onError = (role: string) => (error: unknown) => {
    if (logger) logger.error({ err: error, role }, `${role} loop failed; retrying`);
  };

  if (roles.has('projector') && !kafka && logDatabase !== database) {
    await assertLogCoversReadModel(database, log, prepared.version.liveSchema);
  }

  // The log's planner statistics are kept by the thread that owns its store (ADR 0029): by the
  // projector after each batch, or by the upkeep below where no projector runs. On the embedded
  // split layout the worker's projector reaches the log through a port; the main thread, which
  // owns it, keeps them there (ADR 0030).
  const logServedElsewhere = logDatabase !== database && !logDatabase.session;

  // Where turns are appended and projected in this process, the projector's progress bounds how
  // far the turns may run ahead (ADR 0031).
  const backpressure =
    options.backpressure !== undefined
      ? options.backpressure
      : roles.has('ingest') && roles.has('projector')
        ? projectionBackpressure(config)
        : null;
  const onProjected = options.onProjected;
  const reportProgress =
    roles.has('projector') && !kafka && (onProjected || backpressure)
      ? coalesce(async (schema: string) => {
          const progress: ProjectionProgress = {
            checkpoint: await readCheckpoint(database.db, schema, coreProjectionDefinition.name),
            held: await messageIndexHolds(database.db, schema),
          };
          backpressure?.applied(progress);
          onProjected?.(progress);
        }, onError('projector progress'))
      : null;

  /**
   * Readiness (ADR 0043): the projector and its indexing lane each have a clock of when they last
   * moved. The projector moves with every committed batch and every pass that found it caught up,
   * so a stopped or failing projector stands still; the lane moves with every committed slice,
   * and stands still with work queued only if its oldest queued seal is older than the bound too.
   * Where the projector runs in the background thread, its reports set the clock given here.
   */
  const moved = options.projectorClock ?? { core: performance.now(), lane: performance.now() };
  const move = (what: keyof ProjectorClock) => {
    moved[what] = performance.now();
    options.onMoved?.(what);
  };
  const target = liveTarget({ base, definition: coreProjectionDefinition });
  const kafkaProjector =
    roles.has('projector') && kafka
      ? createKafkaProjector({
          db: database.db,
          ...kafka,
          target,
          sessionTimeout: config.STRATAGATE_KAFKA_SESSION_TIMEOUT_MS,
          onError: onError('projector'),
          onAssignment: ({ groupId, partitions }) => {
            if (logger) logger.info({ groupId, partitions }, 'projector partitions assigned');
          },
        })
      : null;
  const projector =
    roles.has('projector') && !kafka
      ? createProjector({
          db: database.db,
          log: logServedElsewhere ? withoutUpkeep(log) : log,
          target,
          onError: onError('projector'),
          // One session for every role (PGlite): an acknowledgement waits for the batch in
          // progress, so batches are sized to a time budget (ADR 0019).
          ...(database.capabilities.concurrentSessions
            ? {}
            : { batchBudget: { budgetMs: config.STRATAGATE_EMBEDDED_BATCH_MS } }),
          // ... and a batch or an indexing slice gives the session up early to an append that
          // waits for it (ADR 0023).
          ...(database.foregroundWaiting ? { yieldWhen: database.foregroundWaiting } : {}),
          ...(reportProgress ? { onProgress: reportProgress.run } : {}),
          onBatch: () => move('core'),
          onCaughtUp: () => move('core'),
          onSlice: () => move('lane'),
        })
      : null;
  const stallMs = config.STRATAGATE_READY_STALL_MS;
  const projectionStall = async (): Promise<string | null> => {
    if (!projector && !options.projectorClock) return null;
    if (performance.now() - moved.core > stallMs) return 'projection_stalled';
    if (performance.now() - moved.lane <= stallMs) return null;
    const { oldestPosition } = await messageIndexQueued(database.db, await readModel.get());
    if (oldestPosition === null) return null;
    const [seal] = await log.readAll(oldestPosition - 1, 1);
    const age = seal ? Date.now() - Date.parse(seal.recordedAt) : 0;
    return age > stallMs ? 'indexing_stalled' : null;
  };
  /**
   * On the Postgres-table log: the position through which `schema` is complete, the core
   * checkpoint or the position before the oldest seal still being indexed (ADR 0014); given a
   * space, for that space's records, held back only by its own seals (ADR 0043).
   */
  const tableProjected = async (schema: string, space?: SpaceRef) =>
    appliedThrough(
      database.db,
      schema,
      await readCheckpoint(database.db, schema, coreProjectionDefinition.name),
      space,
    );
  // One model per process. The offline provider's synchronous work runs on a thread of its own
  // when the consolidator shares this event loop with another role: requests (ingest, query) or
  // the projector, whose lag grows while a model call holds the loop (ADR 0022).
  const model =
    options.model ?? modelFromConfig(config, { offlineThread: offlineModelThread(config) });
  const consolidator = roles.has('consolidator')
    ? createConsolidator({
        db: database.db,
        log,
        schema: () => readModel.get(),
        model,
        now,
        // The client times out each call and retries transient failures itself; this is the
        // whole job's safety net around those attempts.
        timeoutMs: config.STRATAGATE_MODEL_TIMEOUT_MS * 5,
        topicBuilder: config.STRATAGATE_TOPIC_BUILDER,
        // Several consolidators share the work by leases on spaces (ADR 0042).
        concurrency: config.STRATAGATE_CONSOLIDATOR_CONCURRENCY,
        leaseMs: config.STRATAGATE_CONSOLIDATOR_LEASE_MS,
        onError: onError('consolidator'),
        // On the Postgres-table log the backlog is global (one checkpoint); a Kafka projector
        // group's lag is per partition, and the consolidator does not wait for it.
        ...(kafka
          ? {}
          : {
              progress: async () => ({
                head: await log.headPosition(),
                projected: await tableProjected(await readModel.get()),
              }),
              yieldAboveAppendRate: config.STRATAGATE_CONSOLIDATOR_YIELD_RATE,
            }),
      })
    : null;
  // The offline model's thread loads its code at start, not under the first blocks to
  // consolidate (ADR 0022). A thread that fails here is started again by the first call.
  if (consolidator && model !== options.model && isThreadedModel(model)) {
    model.warm().catch((error: unknown) => {
      // A node stopped before the thread was ready closes it: nothing to report then.
      const closed = error instanceof ModelError && error.code === 'closed';
      if (logger && !closed) {
        logger.warn({ err: error }, 'offline model thread did not start; retried on use');
      }
    });
  }

  // One posting cache per process, validated on every read (ADR 0018).
  const postingCache = roles.has('query')
    ? new PostingCache(config.STRATAGATE_SEARCH_CACHE_MB * 1024 * 1024)
    : null;
  const unobserveCache = postingCache ? observeSearchCache(() => postingCache.stats()) : null;
  const routes: ((app: TypedApp) => Promise<void>)[] = [];
  // One writer per process: ingest and the evidence gate share its per-space lock and state.
  // Its folded states are snapshotted, so a space's first write after a start reads only the
  // records since (ADR 0024).
  const writer = new SpaceWriterService(log, {
    snapshots: writerSnapshots,
    onSnapshotError: (error) => {
      if (logger) logger.warn({ err: error }, 'space writer snapshot not saved; tried again later');
    },
  });
  if (roles.has('ingest')) {
    routes.push(ingestPlugin({ log, writer, now, ...(backpressure ? { backpressure } : {}) }));
  }
  const queryServices: QueryServices | null = roles.has('query')
    ? {
        db: database.db,
        log,
        writer,
        profiles: new ProfileWriter(log),
        now,
        ...(postingCache ? { postingCache } : {}),
        remember: { enabled: config.STRATAGATE_REMEMBER_ENABLED, model },
        projection: {
          liveSchema: () => readModel.get(),
          // A global order (Postgres table): one checkpoint covers every space. Kafka orders a
          // space only: the live group's applied version of the space, against the space's last
          // version, each as the position of that record.
          projectedPosition: kafka
            ? async (schema, space) => {
                const group = kafkaProjectionGroup(
                  DEFAULT_GROUP_PREFIX,
                  kafka.topic,
                  coreProjectionDefinition.name,
                  schema,
                );
                const applied = await kafka.checkpoints.spaceVersions(
                  database.db,
                  group,
                  kafka.topic,
                  [space],
                );
                // Complete up to the version before the space's oldest seal still being indexed.
                const version = await spaceAppliedThrough(
                  database.db,
                  schema,
                  space,
                  applied.get(spaceKey(space)) ?? 0,
                );
                return positionAt(log, space, version);
              }
            : async (schema, space) => tableProjected(schema, space),
          logPosition: async (space) => positionAt(log, space, await log.spaceVersion(space)),
          spacePositionAtOrBelow: (space, position) => spacePositionAtOrBelow(log, space, position),
        },
      }
    : null;
  if (queryServices) routes.push(queryPlugin(queryServices));
  // Export, import and erasure: beside the query role, which has the read models and the writer.
  const dataServices: DataServices | null = queryServices
    ? dataServicesOf({
        config,
        db: database.db,
        log,
        keys: opened.keys,
        kafka,
        writer,
        profiles: queryServices.profiles,
        snapshots: writerSnapshots,
        postingCache,
        liveSchema: () => readModel.get(),
        now,
        imports: { query: queryServices, model },
      })
    : null;
  if (dataServices) routes.push(dataPlugin(dataServices));
  // MCP tools call the API in process with the caller's key (ADR 0053).
  if (queryServices) routes.push(mcpPlugin({ authenticate: (key) => apiKeys.authenticate(key) }));
  // The console reads through the same API, so it is served where the query role is.
  if (queryServices) routes.push(consolePlugin({ dir: options.consoleDir }));
  if (routes.length > 0) {
    routes.push(
      landingPlugin({
        roles: [...roles],
        version: VERSION,
        ...(queryServices ? { consolePath: `${CONSOLE_PATH}/` } : {}),
      }),
    );
  }
  const http =
    routes.length > 0
      ? await buildHttpApp({
          apiKeys,
          logger: logger === false ? false : logger.child({ component: 'http' }),
          bodyLimit: config.STRATAGATE_BODY_LIMIT_BYTES,
          requestTimeoutMs: config.STRATAGATE_REQUEST_TIMEOUT_MS,
          ready: async () => {
            if (!((await log.headPosition()) >= 0)) return false;
            const stall = await projectionStall();
            return stall ? { ready: false, reason: stall } : true;
          },
          routes,
        })
      : null;

  projector?.start();
  await kafkaProjector?.start();
  consolidator?.start();
  // An erasure a crash interrupted is carried through now (ADR 0046).
  const resuming = dataServices
    ? resumeErasures(dataServices).catch(onError('erasure resume'))
    : Promise.resolve();
  const logUpkeep =
    options.logUpkeep !== false && !logServedElsewhere && !roles.has('projector') && log.maintain
      ? setInterval(() => {
          log.maintain!().catch(onError('log upkeep'));
        }, LOG_UPKEEP_MS)
      : null;
  logUpkeep?.unref();
  let url: string | null = null;
  if (http && options.listen !== false) {
    url = await http.listen({ host: config.STRATAGATE_HOST, port: config.STRATAGATE_PORT });
  }

  let stopped = false;
  return {
    config,
    database,
    logDatabase,
    log,
    apiKeys,
    readModel,
    projector,
    kafkaProjector,
    kafka,
    consolidator,
    model,
    http,
    url,
    createdKey,
    postingCache,
    backpressure: roles.has('ingest') ? backpressure : null,
    query: queryServices,
    async stop() {
      if (stopped) return;
      stopped = true;
      // Stop taking requests first, then let the loops finish their current batch.
      await http?.close();
      await resuming;
      unobserveCache?.();
      if (logUpkeep) clearInterval(logUpkeep);
      await consolidator?.stop();
      if (model !== options.model && isThreadedModel(model)) await model.close();
      await projector?.stop();
      await reportProgress?.settled();
      await kafkaProjector?.stop();
      await writer.flush();
      await log.close();
      if (options.closeDatabases !== false) await stores.close();
      await shutdownTelemetry();
    },
  };
}

/**
 * An OpenAI-compatible model when STRATAGATE_MODEL_BASE_URL is set, else the offline provider:
 * on a worker thread of its own with `offlineThread` (ADR 0022), in this thread otherwise.
 */
export function modelFromConfig(
  config: Config,
  options: { offlineThread?: boolean } = {},
): ModelPort {
  const env = Object.fromEntries(
    Object.entries(config).map(([k, v]) => [k, v === undefined ? undefined : String(v)]),
  );
  const modelConfig = loadModelConfigFromEnv(env);
  if (modelConfig) return createOpenAiCompatibleProvider(modelConfig);
  return options.offlineThread
    ? createOfflineProviderThread({ nice: config.STRATAGATE_MODEL_THREAD_NICE })
    : createOfflineProvider();
}

/**
 * With the log and the read models in two stores (ADR 0030), an operating-system crash can take a
 * tail from one and not the other (PGlite does not flush its files). A read model ahead of its log
 * would make the projector skip the records appended next at the positions it believes applied:
 * the node refuses to start instead, and says what to do.
 */
async function assertLogCoversReadModel(
  database: Database,
  log: MessageLog,
  schema: string,
): Promise<void> {
  const applied = await readCheckpoint(database.db, schema, coreProjectionDefinition.name);
  const head = await log.headPosition();
  if (applied > head) {
    const where =
      database.target.kind === 'pglite' && database.target.dataDir
        ? ` (${database.target.dataDir})`
        : '';
    throw new Error(
      `the read models have applied the log through position ${applied}, but the log ends at ` +
        `${head}: the log's store lost records the read models had applied. Everything in the ` +
        `read models' store${where} is derived from the log: delete it and start again, and ` +
        'it is projected anew from the log as it is',
    );
  }
}

/**
 * Runs `work` for the latest argument given, one run at a time: calls while a run is in progress
 * leave one more run, with the last of their arguments, after it.
 */
function coalesce<T>(work: (arg: T) => Promise<void>, onError: (error: unknown) => void) {
  let pending: { arg: T } | null = null;
  let running: Promise<void> | null = null;
  const drain = async () => {
    while (pending) {
      const { arg } = pending;
      pending = null;
      try {
        await work(arg);
      } catch (error) {
        onError(error);
      }
    }
    running = null;
  };
  return {
    run(arg: T) {
      pending = { arg };
      running ??= drain();
    },
    async settled() {
      while (running) await running;
    },
  };
}

const isThreadedModel = (model: ModelPort): model is ThreadedModelPort =>
  'warm' in model && 'close' in model;

/** The log without its upkeep, for a projector whose log another thread keeps. */
function withoutUpkeep(log: MessageLog): MessageLog {
  const { maintain: _kept, ...rest } = log;
  return rest;
}

/** The version the landing page and the API document show. */
const VERSION = '0.1.0';

/** How often a node that owns the log's store but runs no projector checks its statistics. */
export const LOG_UPKEEP_MS = 1000;

/**
 * The position of the space's last record at or below `bound` (0 if none). A space's positions
 * rise with its versions, so a binary search over versions finds it in log2(version) reads.
 */
async function spacePositionAtOrBelow(
  log: MessageLog,
  space: SpaceRef,
  bound: number,
): Promise<number> {
  // `low` is a version known to be at or below the bound (0: none), `high` one not known above it.
  let low = 0;
  let high = await log.spaceVersion(space);
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if ((await positionAt(log, space, middle)) <= bound) low = middle;
    else high = middle - 1;
  }
  return positionAt(log, space, low);
}

/** Position of the space's record at `version` (0 for version 0). */
async function positionAt(log: MessageLog, space: SpaceRef, version: number): Promise<number> {
  if (version === 0) return 0;
  const [record] = await log.readSpace(space, version - 1, 1);
  return record?.position ?? 0;
}
