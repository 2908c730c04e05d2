import { sql } from 'kysely';
import { assertSchemaName, type AnyDb } from '@stratagate/store';
import {
  canonicalRules,
  type Projection,
  type ProjectionDefinition,
  type VersionRules,
} from './projection.ts';

/**
 * The control table: per projection, which schema is live, which one is being rebuilt beside it
 * and which one waits to be dropped (ADR 0009). Keyed by the configured base schema
 * (STRATAGATE_READ_MODEL_SCHEMA) and the projection name, so deployments or tests sharing a
 * database with different base schemas stay independent, and bumping READ_MODEL_VERSION (a new
 * base) starts a new lineage. The configured schema is only where a fresh lineage starts: once a
 * row exists, every process reads the live schema from here.
 */
export const CONTROL_SCHEMA = 'control';
const versionsTable = sql.id(CONTROL_SCHEMA, 'projection_versions');

export type VersionState = 'live' | 'building' | 'draining';

export interface ProjectionVersion {
  baseSchema: string;
  name: string;
  /** Generation of the live version: 1 = the base schema, n = `<base>_r<n>`. */
  generation: number;
  liveSchema: string;
  liveRules: VersionRules;
  state: VersionState;
  buildingGeneration: number | null;
  buildingSchema: string | null;
  buildingRules: VersionRules | null;
  buildingStartedAt: Date | null;
  builderId: string | null;
  /** Milliseconds since the builder last reported, by the database's clock. */
  heartbeatAgeMs: number | null;
  /** The previous live schema after a switch, until it is dropped. */
  retiredSchema: string | null;
  switchedAt: Date | null;
  /** Milliseconds since the last switch, by the database's clock. */
  switchAgeMs: number | null;
}

type Row = {
  base_schema: string;
  name: string;
  generation: number;
  live_schema: string;
  live_rules: VersionRules;
  state: VersionState;
  building_generation: number | null;
  building_schema: string | null;
  building_rules: VersionRules | null;
  building_started_at: Date | null;
  builder_id: string | null;
  heartbeat_age_ms: number | null;
  retired_schema: string | null;
  switched_at: Date | null;
  switch_age_ms: number | null;
};

const columns = sql`base_schema, name, generation, live_schema, live_rules, state,
  building_generation, building_schema, building_rules, building_started_at, builder_id,
  (extract(epoch from (now() - builder_heartbeat_at)) * 1000)::float8 as heartbeat_age_ms,
  retired_schema, switched_at,
  (extract(epoch from (now() - switched_at)) * 1000)::float8 as switch_age_ms`;

const fromRow = (r: Row): ProjectionVersion => ({
  baseSchema: r.base_schema,
  name: r.name,
  generation: Number(r.generation),
  liveSchema: r.live_schema,
  liveRules: parseJson(r.live_rules),
  state: r.state,
  buildingGeneration: r.building_generation === null ? null : Number(r.building_generation),
  buildingSchema: r.building_schema,
  buildingRules: r.building_rules === null ? null : parseJson(r.building_rules),
  buildingStartedAt: r.building_started_at,
  builderId: r.builder_id,
  heartbeatAgeMs: r.heartbeat_age_ms === null ? null : Number(r.heartbeat_age_ms),
  retiredSchema: r.retired_schema,
  switchedAt: r.switched_at,
  switchAgeMs: r.switch_age_ms === null ? null : Number(r.switch_age_ms),
});

function parseJson<T>(value: T | string): T {
  return typeof value === 'string' ? (JSON.parse(value) as T) : value;
}

/** The schema of a generation: the base itself first, then `<base>_r2`, `<base>_r3`, … */
export function generationSchema(base: string, generation: number): string {
  const schema = generation <= 1 ? base : `${base}_r${generation}`;
  assertSchemaName(schema);
  return schema;
}

/** Creates the control schema and table if absent (serialised: processes start together). */
export async function migrateProjectionControl(db: AnyDb): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext('stratagate.projection-control'))`.execute(trx);
    await sql`create schema if not exists ${sql.id(CONTROL_SCHEMA)}`.execute(trx);
    await sql`create table if not exists ${versionsTable} (
      base_schema text not null,
      name text not null,
      generation int not null,
      live_schema text not null,
      live_rules jsonb not null,
      state text not null check (state in ('live', 'building', 'draining')),
      building_generation int,
      building_schema text,
      building_rules jsonb,
      building_started_at timestamptz,
      builder_id text,
      builder_heartbeat_at timestamptz,
      retired_schema text,
      switched_at timestamptz,
      updated_at timestamptz not null default now(),
      primary key (base_schema, name)
    )`.execute(trx);
  });
}

/**
 * The projection's row, created on first use with the base schema as generation 1 and the given
 * rules (a fresh database takes its rules from configuration; later changes need a rebuild).
 */
export async function ensureProjectionVersion(
  db: AnyDb,
  base: string,
  name: string,
  initialRules: VersionRules,
): Promise<ProjectionVersion> {
  assertSchemaName(base);
  await sql`
    insert into ${versionsTable} (base_schema, name, generation, live_schema, live_rules, state)
    values (${base}, ${name}, 1, ${base}, ${JSON.stringify(initialRules)}::jsonb, 'live')
    on conflict (base_schema, name) do nothing`.execute(db);
  const row = await readProjectionVersion(db, base, name);
  if (!row) throw new Error(`projection version row ${base}/${name} vanished`);
  return row;
}

/**
 * Reads the row. `lock`: 'update' for the rebuild's own transitions (switch, claim); 'key share'
 * for projector batches, which then cannot commit across a switch (the switch's `for update`
 * waits for them, and a batch that waited sees the switched row) while heartbeats, plain
 * updates, do not block them.
 */
export async function readProjectionVersion(
  db: AnyDb,
  base: string,
  name: string,
  lock?: 'update' | 'key share',
): Promise<ProjectionVersion | undefined> {
  const locking = lock === 'update' ? sql`for update` : lock ? sql`for key share` : sql``;
  const { rows } = await sql<Row>`
    select ${columns} from ${versionsTable}
    where base_schema = ${base} and name = ${name} ${locking}`.execute(db);
  return rows[0] ? fromRow(rows[0]) : undefined;
}

export async function listProjectionVersions(
  db: AnyDb,
  base: string,
): Promise<ProjectionVersion[]> {
  const { rows } = await sql<Row>`
    select ${columns} from ${versionsTable} where base_schema = ${base} order by name`.execute(db);
  return rows.map(fromRow);
}

/** Updates columns of the row (inside the caller's transaction when it holds the row lock). */
export async function updateProjectionVersion(
  db: AnyDb,
  base: string,
  name: string,
  set: Partial<{
    generation: number;
    live_schema: string;
    live_rules: VersionRules;
    state: VersionState;
    building_generation: number | null;
    building_schema: string | null;
    building_rules: VersionRules | null;
    building_started_at: 'now' | null;
    builder_id: string | null;
    builder_heartbeat_at: 'now' | null;
    retired_schema: string | null;
    switched_at: 'now' | null;
  }>,
  where: { builderId?: string; retiredSchema?: string } = {},
): Promise<number> {
  const assignments = Object.entries(set).map(([column, value]) => {
    const v =
      value === 'now' && column.endsWith('_at')
        ? sql`now()`
        : value !== null && typeof value === 'object'
          ? sql`${JSON.stringify(value)}::jsonb`
          : sql`${value}`;
    return sql`${sql.id(column)} = ${v}`;
  });
  const conditions = [sql`base_schema = ${base}`, sql`name = ${name}`];
  if (where.builderId !== undefined) conditions.push(sql`builder_id = ${where.builderId}`);
  if (where.retiredSchema !== undefined) {
    conditions.push(sql`retired_schema = ${where.retiredSchema}`);
  }
  const result = await sql`
    update ${versionsTable} set ${sql.join([...assignments, sql`updated_at = now()`])}
    where ${sql.join(conditions, sql` and `)}`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

export function sameRules(a: VersionRules | null, b: VersionRules | null): boolean {
  return a !== null && b !== null && canonicalRules(a) === canonicalRules(b);
}

/** Whether a schema exists (a live schema never migrated yet, a retired one already dropped). */
export async function schemaExists(db: AnyDb, schema: string): Promise<boolean> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from information_schema.schemata
    where schema_name = ${schema}`.execute(db);
  return Number(rows[0]?.n ?? 0) > 0;
}

// ---------------------------------------------------------------------------------------------
// Where a projector writes

export interface ResolvedTarget {
  schema: string;
  projection: Projection;
}

/**
 * Where a projector's batches go. `current` is read once per pass of the loop (no locks);
 * `confirm` runs inside each batch's transaction and throws `TargetMoved` when the batch would
 * commit into a schema that is no longer the target (a switch committed in between).
 */
export interface ProjectionTarget {
  current(db: AnyDb): Promise<ResolvedTarget>;
  confirm(trx: AnyDb, expected: ResolvedTarget): Promise<void>;
}

/** The target moved (reads switched to another schema): re-resolve and carry on. */
export class TargetMoved extends Error {
  constructor(from: string, to: string) {
    super(`projection target moved from ${from} to ${to}`);
  }
}

/** This process runs older projection code than the live version was built with. */
export class ProjectionCodeBehind extends Error {}

/** Another rebuild took this build over, or it was abandoned. */
export class RebuildSuperseded extends Error {}

/** One schema, always (tests, scratch rebuilds, tools). */
export function fixedTarget(schema: string, projection: Projection): ProjectionTarget {
  const resolved = { schema, projection };
  return { current: async () => resolved, confirm: async () => {} };
}

/** Cache of projections per rule set, so a target resolves to the same instance. */
function projectionsByRules<R>(definition: ProjectionDefinition<R>) {
  const cache = new Map<string, Projection>();
  return (rules: VersionRules): Projection => {
    const key = canonicalRules(rules);
    let projection = cache.get(key);
    if (!projection) {
      projection = definition.create(definition.parseRules(rules.rules));
      cache.set(key, projection);
    }
    return projection;
  };
}

/**
 * The live version named by the control table, built with the rules recorded there (not this
 * process's configuration): after a switch the projector continues the new schema from its own
 * checkpoint with the rules it was rebuilt with.
 */
export function liveTarget<R>(options: {
  base: string;
  definition: ProjectionDefinition<R>;
}): ProjectionTarget {
  const { base, definition } = options;
  const projectionFor = projectionsByRules(definition);
  return {
    async current(db) {
      const row = await readProjectionVersion(db, base, definition.name);
      if (!row) throw new Error(`no control row for ${base}/${definition.name}; run migrate`);
      if (row.liveRules.codeVersion > definition.codeVersion) {
        throw new ProjectionCodeBehind(
          `${definition.name} in ${row.liveSchema} was built by code version ` +
            `${row.liveRules.codeVersion}; this process runs ${definition.codeVersion} and ` +
            'will not write it (upgrade this process)',
        );
      }
      return { schema: row.liveSchema, projection: projectionFor(row.liveRules) };
    },
    async confirm(trx, expected) {
      const row = await readProjectionVersion(trx, base, definition.name, 'key share');
      if (!row || row.liveSchema !== expected.schema) {
        throw new TargetMoved(expected.schema, row?.liveSchema ?? '(none)');
      }
    },
  };
}

/** The version a rebuild is building; its batches stop committing once the build is not ours. */
export function buildingTarget(options: {
  base: string;
  name: string;
  schema: string;
  projection: Projection;
  builderId: string;
}): ProjectionTarget {
  const resolved = { schema: options.schema, projection: options.projection };
  return {
    current: async () => resolved,
    async confirm(trx) {
      const row = await readProjectionVersion(trx, options.base, options.name, 'key share');
      if (
        !row ||
        row.state !== 'building' ||
        row.buildingSchema !== options.schema ||
        row.builderId !== options.builderId
      ) {
        throw new RebuildSuperseded(
          `the build of ${options.schema} is no longer ours (state ${row?.state ?? 'missing'}, ` +
            `builder ${row?.builderId ?? 'none'})`,
        );
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Where readers read

/**
 * The live schema for readers (query role, consolidator, CLI), cached: `get` re-reads the control
 * row when the cached answer is older than `refreshMs` (one primary-key lookup per process per
 * interval, shared by concurrent callers), `cached` never does I/O. A rebuild waits longer than
 * any reader's refresh interval before it drops the old schema (ADR 0009).
 */
export interface LiveSchema {
  cached(): string;
  get(): Promise<string>;
  refresh(): Promise<string>;
}

export function createLiveSchema(options: {
  db: AnyDb;
  base: string;
  name: string;
  refreshMs: number;
  /** The live schema already known (read at start). */
  initial: string;
}): LiveSchema {
  let current = options.initial;
  let checkedAt = Date.now();
  let inFlight: Promise<string> | null = null;

  function refresh(): Promise<string> {
    inFlight ??= readProjectionVersion(options.db, options.base, options.name)
      .then((row) => {
        if (row) current = row.liveSchema;
        checkedAt = Date.now();
        return current;
      })
      .finally(() => {
        inFlight = null;
      });
    return inFlight;
  }

  return {
    cached: () => current,
    refresh,
    get: () => (Date.now() - checkedAt < options.refreshMs ? Promise.resolve(current) : refresh()),
  };
}
