import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { KafkaMessageSource, MessageLog, MessageSource } from '@stratagate/log';
import type { AnyDb } from '@stratagate/store';
import { readCheckpoint } from './checkpoints.ts';
import { DEFAULT_GROUP_PREFIX, kafkaSourceOf, type KafkaSource } from './kafka-runner.ts';
import {
  completeThrough,
  versionRulesOf,
  type ProjectionDefinition,
  type VersionRules,
} from './projection.ts';
import { PROJECTIONS } from './core.projection.ts';
import { createRunner, tableSourceOf } from './runner.ts';
import {
  buildingTarget,
  ensureProjectionVersion,
  generationSchema,
  listProjectionVersions,
  migrateProjectionControl,
  readProjectionVersion,
  RebuildSuperseded,
  sameRules,
  schemaExists,
  updateProjectionVersion,
} from './versions.ts';

/**
 * Side-by-side rebuild (ADR 0009): build the next version of a projection from position 0 in its
 * own schema while the live version keeps serving and being projected, switch reads in one
 * transaction on the control row once the new version has caught up, then drop the old schema
 * after a drain period.
 */
export interface RebuildOptions<R> {
  db: AnyDb;
  log: MessageLog;
  /** The configured base schema (STRATAGATE_READ_MODEL_SCHEMA). */
  base: string;
  definition: ProjectionDefinition<R>;
  /** Rules of the new version (validated by the definition, defaults filled in). */
  rules: unknown;
  /** Records per batch (default 1000). */
  batchSize?: number;
  /**
   * How long the old schema stays after the switch before it is dropped (default 10 s). Must
   * exceed the readers' refresh interval (STRATAGATE_PROJECTION_REFRESH_MS) plus the longest
   * request, so nothing still reading the old schema finds it gone.
   */
  drainMs?: number;
  /** A build whose builder has not reported for this long is taken over (default 30 s). */
  staleMs?: number;
  heartbeatMs?: number;
  /** Take over a build even though its builder reported recently. */
  takeOver?: boolean;
  progressMs?: number;
  onProgress?: (progress: RebuildProgress) => void;
  /**
   * Stops the build at the next batch boundary, leaving the control row as a crash would (the
   * build stays claimed until its heartbeat goes stale, or until `releaseBuild`).
   */
  signal?: AbortSignal;
  builderId?: string;
  /**
   * The log is a Kafka topic (ADR 0012): the new version is built by the consumer group of its
   * schema from offset 0, and reads switch once that group has reached the end of every
   * partition and is nowhere behind the live version's group. Positions are then sums of
   * partition offsets.
   */
  kafka?: KafkaSource;
}

export type RebuildPhase = 'building' | 'switching' | 'draining' | 'done';

export interface RebuildProgress {
  phase: RebuildPhase;
  name: string;
  schema: string;
  /** The building schema's checkpoint. */
  position: number;
  head: number;
  /** Records applied per second over the last interval (the whole build at 'done'). */
  recordsPerSecond: number;
  /** Records applied by this run. */
  applied: number;
  elapsedMs: number;
}

export interface RebuildResult {
  name: string;
  liveSchema: string;
  generation: number;
  /** The building schema's checkpoint when this run started: > 0 when it resumed a build. */
  resumedFrom: number;
  /** A build with other rules was found and started over. */
  restarted: boolean;
  /** Position the new version had reached when reads switched to it. */
  switchedAt: number;
  droppedSchema: string | null;
  /** A previous run had already switched to a version with these rules; this one only dropped. */
  alreadyLive: boolean;
}

export class RebuildInProgress extends Error {}
export class RebuildAborted extends Error {}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

export async function rebuildProjection<R>(options: RebuildOptions<R>): Promise<RebuildResult> {
  const { db, log, base, definition } = options;
  const name = definition.name;
  const wanted = versionRulesOf(definition, options.rules);
  const builderId = options.builderId ?? randomUUID();
  const drainMs = options.drainMs ?? 10_000;
  const started = Date.now();

  await migrateProjectionControl(db);
  // A database rebuilt before any node started: the live version's rules are unknown, take the
  // defaults (nodes create this row from their configuration on start).
  const initial = await ensureProjectionVersion(db, base, name, versionRulesOf(definition, {}));

  // A previous run switched but did not drop the old schema: finish that first.
  if (initial.state === 'draining' && initial.retiredSchema) {
    const dropped = await finishDrain(db, base, name, initial.retiredSchema, drainMs);
    if (sameRules(initial.liveRules, wanted)) {
      return {
        name,
        liveSchema: initial.liveSchema,
        generation: initial.generation,
        resumedFrom: 0,
        restarted: false,
        switchedAt: await readCheckpoint(db, initial.liveSchema, name),
        droppedSchema: dropped,
        alreadyLive: true,
      };
    }
  }

  const claim = await claimBuild(db, base, name, wanted, builderId, {
    staleMs: options.staleMs ?? 30_000,
    takeOver: options.takeOver ?? false,
  });
  const { schema } = claim;
  const projection = definition.create(definition.parseRules(wanted.rules));
  await projection.migrate(db, schema);
  const kafka = options.kafka;
  // The consumer of a version: on Kafka a group per schema (the build's own group beside the
  // live one's), on the table log the schema's checkpoint row. Kafka sources join only in the
  // runner; here they answer for their checkpoints.
  const consumerOf = (of: string, prefix?: string): Promise<MessageSource> => {
    const t = { schema: of, projection };
    if (!kafka) return Promise.resolve(tableSourceOf(db, log, t));
    return kafkaSourceOf(db, { ...kafka, ...(prefix ? { groupPrefix: prefix } : {}) }, t);
  };
  const buildPrefix = `${kafka?.groupPrefix ?? DEFAULT_GROUP_PREFIX}-build`;
  const build = await consumerOf(schema, kafka ? buildPrefix : undefined);
  const resumedFrom = (await build.checkpoint()).position;

  const progress = progressReporter({
    head: () => build.head(),
    name,
    schema,
    position: resumedFrom,
    started,
    onProgress: options.onProgress,
  });
  const heartbeat = setInterval(() => {
    void updateProjectionVersion(db, base, name, { builder_heartbeat_at: 'now' }, { builderId })
      // A missed heartbeat only makes the build look stale sooner.
      .catch(() => {});
  }, options.heartbeatMs ?? 2_000);
  await progress.report('building');
  const ticker = setInterval(() => void progress.report('building'), options.progressMs ?? 1_000);

  let switched: { retired: string; position: number };
  try {
    switched = await buildAndSwitch();
  } finally {
    clearInterval(heartbeat);
    clearInterval(ticker);
    await build.close();
  }

  /**
   * The one build path (ADR 0049): the runner over the build's source applies the log from its
   * checkpoint (0, or where a crashed build stopped) until caught up, deferred work included;
   * then the switch compares the two versions' checkpoints in its transaction. On Kafka the
   * build has a group of its own (`<prefix>-build`); at the switch its checkpoints become those
   * of the schema's live group, which the running projectors join next: a fresh group, so they
   * need not wait for the builder's membership to expire.
   */
  async function buildAndSwitch(): Promise<{ retired: string; position: number }> {
    const aborted = () => new RebuildAborted(`rebuild of ${name} interrupted`);
    const runner = createRunner({
      db,
      target: buildingTarget({ base, name, schema, projection, builderId }),
      batchSize: options.batchSize ?? 1000,
      ...(kafka ? { concurrency: 4 } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      async source() {
        await (build as Partial<KafkaMessageSource>).join?.();
        return build;
      },
      onBatch: (batch) => {
        progress.batch(batch.to, batch.records);
        // After a committed batch, as a crash would stop it.
        if (options.signal?.aborted) throw aborted();
      },
    });
    try {
      for (;;) {
        await runner.catchUp();
        if (options.signal?.aborted) throw aborted();
        const outcome = await trySwitch(db, base, name, schema, builderId, async (trx, live) => {
          const mine = await build.checkpoint(trx);
          const [them, next] = [await consumerOf(live), await consumerOf(schema)];
          try {
            const theirs = (await schemaExists(trx, live)) ? await them.checkpoint(trx) : null;
            const behind = theirs ? build.behind(mine, theirs) : 0;
            if (behind === 0) await build.handOver(trx, next);
            return { position: mine.position, behind };
          } finally {
            await Promise.all([them.close(), next.close()]);
          }
        });
        if (outcome.switched) return outcome;
        // The live version applied records we have not yet: catch up again and retry.
        await progress.report('switching');
      }
    } finally {
      await runner.stop();
    }
  }

  await progress.report('draining');
  const dropped = await finishDrain(db, base, name, switched.retired, drainMs);
  await progress.report('done');
  return {
    name,
    liveSchema: schema,
    generation: claim.generation,
    resumedFrom,
    restarted: claim.restarted,
    switchedAt: switched.position,
    droppedSchema: dropped,
    alreadyLive: false,
  };
}

/**
 * Claims the next version for this builder: a new generation, or the build already recorded
 * (resumed from its own checkpoint when its rules are the ones wanted, started over otherwise).
 */
export async function claimBuild(
  db: AnyDb,
  base: string,
  name: string,
  wanted: VersionRules,
  builderId: string,
  options: { staleMs: number; takeOver: boolean },
): Promise<{ schema: string; generation: number; resumed: boolean; restarted: boolean }> {
  return db.transaction().execute(async (trx) => {
    const row = await readProjectionVersion(trx, base, name, 'update');
    if (!row) throw new Error(`no control row for ${base}/${name}`);
    if (row.state === 'draining') {
      throw new RebuildInProgress(
        `${name}: the previous version ${row.retiredSchema ?? '?'} is still draining; try again shortly`,
      );
    }
    if (row.state === 'building') {
      const schema = row.buildingSchema!;
      const generation = row.buildingGeneration!;
      const alive = row.heartbeatAgeMs !== null && row.heartbeatAgeMs < options.staleMs;
      if (alive && row.builderId !== builderId && !options.takeOver) {
        throw new RebuildInProgress(
          `a rebuild of ${name} into ${schema} is running (its builder reported ` +
            `${Math.round((row.heartbeatAgeMs ?? 0) / 1000)} s ago); wait for it, or take it over ` +
            'if that process is gone',
        );
      }
      if (sameRules(row.buildingRules, wanted)) {
        await updateProjectionVersion(trx, base, name, {
          builder_id: builderId,
          builder_heartbeat_at: 'now',
        });
        return { schema, generation, resumed: true, restarted: false };
      }
      // Other rules than the build on record: its rows are worthless, start it over.
      await dropSchema(trx, schema, row.liveSchema);
      await updateProjectionVersion(trx, base, name, {
        building_rules: wanted,
        building_started_at: 'now',
        builder_id: builderId,
        builder_heartbeat_at: 'now',
      });
      return { schema, generation, resumed: false, restarted: true };
    }
    const generation = row.generation + 1;
    const schema = generationSchema(base, generation);
    // Left over by a build abandoned before it was recorded? Never the live or retired schema.
    await dropSchema(trx, schema, row.liveSchema);
    await updateProjectionVersion(trx, base, name, {
      state: 'building',
      building_generation: generation,
      building_schema: schema,
      building_rules: wanted,
      building_started_at: 'now',
      builder_id: builderId,
      builder_heartbeat_at: 'now',
    });
    return { schema, generation, resumed: false, restarted: false };
  });
}

/**
 * The switch: one transaction on the control row. Its `for update` waits for projector batches
 * in flight (they hold `for key share`) and holds back new ones, so the live checkpoint read here
 * is final for the old version. Reads switch only if the new version has applied at least as
 * much as the old one (no read ever goes back in the log); otherwise nothing changes and the
 * caller catches up again.
 */
export async function trySwitch(
  db: AnyDb,
  base: string,
  name: string,
  schema: string,
  builderId: string,
  /** How far the building version is and how far behind the live one (default: checkpoints). */
  compare?: (trx: AnyDb, liveSchema: string) => Promise<{ position: number; behind: number }>,
): Promise<
  { switched: true; retired: string; position: number } | { switched: false; behind: number }
> {
  return db.transaction().execute(async (trx) => {
    const row = await readProjectionVersion(trx, base, name, 'update');
    if (
      !row ||
      row.state !== 'building' ||
      row.buildingSchema !== schema ||
      row.builderId !== builderId
    ) {
      throw new RebuildSuperseded(`the build of ${schema} is no longer ours`);
    }
    const { position, behind } = compare
      ? await compare(trx, row.liveSchema)
      : await checkpointsBehind(trx, row.liveSchema, schema, name);
    if (behind > 0) return { switched: false, behind };
    await updateProjectionVersion(trx, base, name, {
      generation: row.buildingGeneration!,
      live_schema: schema,
      live_rules: row.buildingRules!,
      state: 'draining',
      retired_schema: row.liveSchema,
      switched_at: 'now',
      ...NO_BUILD,
    });
    return { switched: true, retired: row.liveSchema, position };
  });
}

/** The control row's columns of a build, cleared (after a switch or an abandon). */
const NO_BUILD = {
  building_generation: null,
  building_schema: null,
  building_rules: null,
  building_started_at: null,
  builder_id: null,
  builder_heartbeat_at: null,
} as const;

async function checkpointsBehind(trx: AnyDb, liveSchema: string, schema: string, name: string) {
  const live = (await schemaExists(trx, liveSchema))
    ? await readCheckpoint(trx, liveSchema, name)
    : 0;
  const position = await readCheckpoint(trx, schema, name);
  return { position, behind: Math.max(0, live - position) };
}

/**
 * Drops the retired schema once `drainMs` have passed since the switch (by the database clock),
 * then marks the row live. Dropping comes first and is idempotent, so a crash in between is
 * finished by the next run.
 */
export async function finishDrain(
  db: AnyDb,
  base: string,
  name: string,
  retired: string,
  drainMs: number,
): Promise<string | null> {
  const before = await readProjectionVersion(db, base, name);
  if (before?.retiredSchema !== retired) return null;
  await sleep(drainMs - (before.switchAgeMs ?? 0));
  const row = await readProjectionVersion(db, base, name);
  if (!row || row.retiredSchema !== retired) return null;
  await dropSchema(db, retired, row.liveSchema);
  await db.transaction().execute(async (trx) => {
    const locked = await readProjectionVersion(trx, base, name, 'update');
    if (locked?.retiredSchema !== retired) return;
    await updateProjectionVersion(trx, base, name, {
      retired_schema: null,
      ...(locked.state === 'draining' ? { state: 'live' as const } : {}),
    });
  });
  return retired;
}

/** Gives up the build (`projections abandon`): drops its schema, the live version stays. */
export async function abandonBuild(db: AnyDb, base: string, name: string): Promise<string | null> {
  return db.transaction().execute(async (trx) => {
    const row = await readProjectionVersion(trx, base, name, 'update');
    if (!row || row.state !== 'building' || !row.buildingSchema) return null;
    await dropSchema(trx, row.buildingSchema, row.liveSchema);
    await updateProjectionVersion(trx, base, name, {
      state: 'live',
      ...NO_BUILD,
    });
    return row.buildingSchema;
  });
}

/** Lets a rerun resume at once after an interrupted (not crashed) build. */
export async function releaseBuild(
  db: AnyDb,
  base: string,
  name: string,
  builderId: string,
): Promise<void> {
  await updateProjectionVersion(
    db,
    base,
    name,
    { builder_id: null, builder_heartbeat_at: null },
    { builderId },
  );
}

async function dropSchema(db: AnyDb, schema: string, liveSchema: string): Promise<void> {
  if (schema === liveSchema) throw new Error(`refusing to drop the live schema ${schema}`);
  await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(db);
}

function progressReporter(options: {
  head: () => Promise<number>;
  name: string;
  schema: string;
  position: number;
  started: number;
  onProgress: ((progress: RebuildProgress) => void) | undefined;
}) {
  let position = options.position;
  let applied = 0;
  let windowStart = Date.now();
  let windowApplied = 0;
  const order: RebuildPhase[] = ['building', 'switching', 'draining', 'done'];
  let reached = 0;
  let builtAt: number | null = null;
  return {
    batch(to: number, records: number) {
      position = to;
      applied += records;
      windowApplied += records;
    },
    async report(phase: RebuildPhase) {
      if (!options.onProgress) return;
      reached = Math.max(reached, order.indexOf(phase));
      const head = await options.head().catch(() => position);
      // A timer tick that resolves after a later phase was reported says nothing new.
      if (order.indexOf(phase) < reached) return;
      const now = Date.now();
      if (phase === 'draining') builtAt ??= now;
      // The last report gives the rate of the whole build (the drain is not building).
      const recordsPerSecond =
        phase === 'done'
          ? (applied * 1000) / Math.max(1, (builtAt ?? now) - options.started)
          : (windowApplied * 1000) / Math.max(1, now - windowStart);
      windowStart = now;
      windowApplied = 0;
      options.onProgress({
        phase,
        name: options.name,
        schema: options.schema,
        position,
        head,
        recordsPerSecond,
        applied,
        elapsedMs: now - options.started,
      });
    },
  };
}

/** Where one version stands: its checkpoint, its deferred work, and its lag behind the head. */
export interface VersionProgress {
  schema: string;
  generation: number;
  /** The checkpoint: the last record its batches applied. */
  position: number;
  /** Items of deferred work still queued (ADR 0014: sealed blocks awaiting raw-search indexing). */
  queued: number;
  /** Complete through: the checkpoint, or the position before the oldest queued item. */
  applied: number;
  /** Records not completely applied: head − applied. */
  lag: number;
  rules: VersionRules;
}

export interface ProjectionStatus {
  name: string;
  head: number;
  live: VersionProgress;
  building:
    | (VersionProgress & {
        startedAt: Date | null;
        heartbeatAgeMs: number | null;
      })
    | null;
  retiredSchema: string | null;
}

/** Live and building versions of every projection of this base schema, with their lag. */
export async function projectionStatus(
  db: AnyDb,
  log: MessageLog,
  base: string,
  /** The projections' code, for their deferred work (default: every rebuildable projection). */
  definitions: Record<string, ProjectionDefinition> = PROJECTIONS,
): Promise<ProjectionStatus[]> {
  const head = await log.headPosition();
  const progress = async (
    name: string,
    schema: string,
    generation: number,
    rules: VersionRules,
  ): Promise<VersionProgress> => {
    if (!(await schemaExists(db, schema))) {
      return { schema, generation, position: 0, queued: 0, applied: 0, lag: head, rules };
    }
    const position = await readCheckpoint(db, schema, name);
    // The deferred work of the code that runs this projection, with this version's rules.
    const definition = definitions[name];
    const deferred = definition?.create(definition.parseRules(rules.rules)).deferred;
    const queued = deferred
      ? await deferred.queued(db, schema)
      : { items: 0, oldestPosition: null };
    const applied = completeThrough(position, queued.oldestPosition);
    return {
      schema,
      generation,
      position,
      queued: queued.items,
      applied,
      lag: head - applied,
      rules,
    };
  };
  const out: ProjectionStatus[] = [];
  for (const row of await listProjectionVersions(db, base)) {
    let building: ProjectionStatus['building'] = null;
    if (row.state === 'building' && row.buildingSchema) {
      building = {
        ...(await progress(
          row.name,
          row.buildingSchema,
          row.buildingGeneration ?? 0,
          row.buildingRules ?? { codeVersion: 0, rules: {} },
        )),
        startedAt: row.buildingStartedAt,
        heartbeatAgeMs: row.heartbeatAgeMs,
      };
    }
    out.push({
      name: row.name,
      head,
      live: await progress(row.name, row.liveSchema, row.generation, row.liveRules),
      building,
      retiredSchema: row.retiredSchema,
    });
  }
  return out;
}
