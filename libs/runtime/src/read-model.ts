import {
  coreProjection,
  coreProjectionDefinition,
  ensureProjectionVersion,
  migrateProjectionControl,
  sameRules,
  versionRulesOf,
  type ProjectionVersion,
} from '@stratagate/projector';
import {
  migrateImportJobs,
  migrateJobLeases,
  migrateSpaceImports,
  migrateTopicBudget,
  type AnyDb,
} from '@stratagate/store';
import { coreRulesFromConfig, type Config } from './config.ts';

/**
 * Makes sure the control table and the core projection's row exist (a fresh database starts at
 * the configured schema and rules) and that the live schema's tables are there.
 */
export async function prepareReadModel(
  db: AnyDb,
  config: Config,
): Promise<{ version: ProjectionVersion; configMatches: boolean }> {
  await migrateProjectionControl(db);
  const configured = versionRulesOf(coreProjectionDefinition, coreRulesFromConfig(config));
  const version = await ensureProjectionVersion(
    db,
    config.STRATAGATE_READ_MODEL_SCHEMA,
    coreProjectionDefinition.name,
    configured,
  );
  await coreProjection.migrate(db, version.liveSchema);
  // Where space imports mark what they write, so the consolidator waits (ADR 0045).
  await migrateSpaceImports(db);
  // Where external memory imports keep their previews until they are committed (ADR 0047).
  await migrateImportJobs(db);
  // Where the model calls for topics over a space's history are reserved (MM-TOP-9).
  await migrateTopicBudget(db);
  // Where consolidators claim a space's (or the profiles') jobs before running them (ADR 0042).
  await migrateJobLeases(db);
  return { version, configMatches: sameRules(version.liveRules, configured) };
}
