import { AsyncLocalStorage } from 'node:async_hooks';
import type { TypedApp } from '@stratagate/http';
import {
  coreProjection,
  coreProjectionDefinition,
  ensureProjectionVersion,
  migrateProjectionControl,
  sameRules,
  versionRulesOf,
  type LiveSchema,
  type ProjectionVersion,
} from '@stratagate/projector';
import type { AnyDb } from '@stratagate/store';
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
  return { version, configMatches: sameRules(version.liveRules, configured) };
}

/**
 * Read-model schema per HTTP request: each /v1 request is pinned to the live schema as of its
 * start (one cached lookup, see LiveSchema), so a request never mixes two versions even if a
 * switch lands while it runs; requests that wait for the projection follow a switch (the old
 * version stops advancing at the switch, waiting on it would time out).
 */
export function requestReadModel(live: LiveSchema) {
  const storage = new AsyncLocalStorage<{ schema: string }>();
  return {
    /** The current request's schema, else the last known live one. */
    schema: (): string => storage.getStore()?.schema ?? live.cached(),
    /** Re-checks the live schema and moves the current request to it. */
    async follow(): Promise<string> {
      const latest = await live.get();
      const pinned = storage.getStore();
      if (pinned) pinned.schema = latest;
      return latest;
    },
    /** Registered before the query routes: pins every /v1 request. */
    hook(app: TypedApp): void {
      app.addHook('onRequest', (request, _reply, done) => {
        if (!request.url.startsWith('/v1/')) return done();
        live.get().then(
          (schema) => storage.run({ schema }, () => done()),
          (error: unknown) => done(error as Error),
        );
      });
    },
  };
}
