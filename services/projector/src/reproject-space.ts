import { sql } from 'kysely';
import {
  decodeRecord,
  isProfileStream,
  PROFILE_STREAM_PREFIX,
  type SpaceRef,
  type StoredRecord,
} from '@stratagate/domain';
import type { MessageLog } from '@stratagate/log';
import { assertSchemaName, type AnyDb } from '@stratagate/store';
import { readCheckpoint } from './checkpoints.ts';
import { PROJECTIONS } from './core.projection.ts';
import type { Projection, ProjectionDefinition } from './projection.ts';
import { readProjectionVersion, schemaExists } from './versions.ts';

export interface ReprojectOptions {
  /** The read models' database. */
  db: AnyDb;
  /** The log as readers see it: records whose content was erased read as erased. */
  log: MessageLog;
  /** The configured base schema (STRATAGATE_READ_MODEL_SCHEMA). */
  base: string;
  space: SpaceRef;
  definitions?: readonly ProjectionDefinition[];
  /**
   * On a Kafka log: the space version the projector's group applied to `schema`. Without it the
   * log is the table, and a schema holds every record up to its checkpoint.
   */
  appliedVersion?: (
    trx: AnyDb,
    schema: string,
    name: string,
    version: 'live' | 'building',
  ) => Promise<number>;
}

type Role = 'live' | 'building';

class CaughtUpMeanwhile extends Error {}

/**
 * Rebuilds one space's rows in every version of each read model from the space's records as they
 * read now (ADR 0046): after an erasure, the rows its records made are deleted and everything the
 * remaining records make is written again, exactly as a rebuild from position 0 would. In one
 * transaction per projection that holds the control row (no batch of the live or the building
 * version commits meanwhile) and the raw-search lane's lock; a version being dropped only loses
 * the space's rows. Records appended while it runs, past what the version had applied, are left
 * to the projector, as any new record is.
 */
export async function reprojectSpace(options: ReprojectOptions): Promise<{ schemas: string[] }> {
  const { db, log, base, space } = options;
  const touched: string[] = [];
  for (const definition of options.definitions ?? Object.values(PROJECTIONS)) {
    for (let attempt = 1; ; attempt++) {
      // Read before the transaction: on a one-session store the log is behind the same session.
      const records = await readWholeSpace(log, space);
      const last = records.at(-1);
      let checkpoints: number[] = [];
      try {
        checkpoints = await db.transaction().execute(async (trx) => {
          const row = await readProjectionVersion(trx, base, definition.name, 'update');
          if (!row) return [];
          type Version = { schema: string; projection: Projection | null; role: Role };
          const versions: Version[] = [
            {
              schema: row.liveSchema,
              projection: definition.create(definition.parseRules(row.liveRules.rules)),
              role: 'live',
            },
          ];
          if (row.buildingSchema && row.buildingRules) {
            versions.push({
              schema: row.buildingSchema,
              projection: definition.create(definition.parseRules(row.buildingRules.rules)),
              role: 'building',
            });
          }
          if (row.retiredSchema) {
            versions.push({ schema: row.retiredSchema, projection: null, role: 'live' });
          }
          const applied: number[] = [];
          for (const { schema, projection, role } of versions) {
            if (!(await schemaExists(trx, schema))) continue;
            await sql`select pg_advisory_xact_lock(hashtext('stratagate.message_index'), hashtext(${schema}))`.execute(
              trx,
            );
            await deleteSpaceRows(trx, schema, space);
            touched.push(schema);
            if (!projection) continue;
            let upTo: (r: StoredRecord) => boolean;
            if (options.appliedVersion) {
              const version = await options.appliedVersion(trx, schema, definition.name, role);
              if (version > (last?.spaceVersion ?? 0)) throw new CaughtUpMeanwhile();
              upTo = (r) => r.spaceVersion <= version;
            } else {
              const checkpoint = await readCheckpoint(trx, schema, definition.name);
              applied.push(checkpoint);
              upTo = (r) => r.position <= checkpoint;
            }
            const decoded = records
              .filter(upTo)
              .map((r) => decodeRecord(r))
              .filter((r): r is NonNullable<typeof r> => r !== null);
            if (decoded.length > 0) await projection.handle(trx, schema, decoded);
          }
          return applied;
        });
      } catch (error) {
        if (error instanceof CaughtUpMeanwhile && attempt < 5) continue;
        throw error;
      }
      // A record of the space the projector applied between the read and the transaction
      // would be missing: read on from where the read stopped, and run again if there is one.
      const [next] = await log.readSpace(space, last?.spaceVersion ?? 0, 1);
      const missed = next !== undefined && checkpoints.some((c) => next.position <= c);
      if (!missed) break;
      if (attempt >= 5)
        throw new Error(`space ${space.spaceId} kept changing while it was reprojected`);
    }
    await drainDeferred(db, definition, base);
  }
  return { schemas: [...new Set(touched)] };
}

async function readWholeSpace(log: MessageLog, space: SpaceRef): Promise<StoredRecord[]> {
  const out: StoredRecord[] = [];
  for (;;) {
    const page = await log.readSpace(space, out.at(-1)?.spaceVersion ?? 0, 1000);
    out.push(...page);
    if (page.length < 1000) return out;
  }
}

/**
 * Deletes every row of `space` from every table of `schema` that has the space's columns: the
 * projections' tables, the search index and whatever a later projection adds. A profile's stream
 * (ADR 0050) makes rows keyed by the profile instead: every table with the profile's columns and
 * none of a space's (a space's binding names a profile too, and stays).
 */
export async function deleteSpaceRows(trx: AnyDb, schema: string, space: SpaceRef): Promise<void> {
  assertSchemaName(schema);
  const [column, id] = isProfileStream(space.spaceId)
    ? ['profile_id', space.spaceId.slice(PROFILE_STREAM_PREFIX.length)]
    : ['space_id', space.spaceId];
  const { rows } = await sql<{ table_name: string }>`
    select c.table_name from information_schema.columns c
    join information_schema.tables t
      on t.table_schema = c.table_schema and t.table_name = c.table_name
    where c.table_schema = ${schema} and t.table_type = 'BASE TABLE'
      and c.column_name in ('tenant_id', ${column}, 'space_id')
    group by c.table_name
    having count(*) = 2 and bool_or(c.column_name = 'tenant_id')
      and bool_or(c.column_name = ${column})
    order by c.table_name`.execute(trx);
  for (const { table_name } of rows) {
    await sql`delete from ${sql.id(schema, table_name)}
      where tenant_id = ${space.tenantId} and ${sql.ref(column)} = ${id}`.execute(trx);
  }
}

/** The live version's deferred work (raw-search indexing of re-sealed blocks), done now. */
async function drainDeferred(db: AnyDb, definition: ProjectionDefinition, base: string) {
  const row = await readProjectionVersion(db, base, definition.name);
  if (!row) return;
  const projection = definition.create(definition.parseRules(row.liveRules.rules));
  if (!projection.deferred) return;
  while ((await projection.deferred.drain(db, row.liveSchema)) > 0) {
    // Slice after slice, until the queue is empty.
  }
}
