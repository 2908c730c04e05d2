import { openDatabase } from '@stratagate/store';
import { loadConfig } from './config.ts';
import { startNode } from './node.ts';

/**
 * The OpenAPI document the API serves, built the way a running node builds it (the ingest and
 * query roles on a throwaway in-memory database) but never listening: what client generators
 * read, so the generated clients describe exactly the routes that answer.
 */
export async function servedOpenApiDocument(): Promise<Record<string, unknown>> {
  const database = await openDatabase({ kind: 'pglite' });
  const config = loadConfig(
    {},
    { STRATAGATE_ROLES: 'ingest,query', STRATAGATE_LOG_LEVEL: 'silent' },
  );
  const node = await startNode(config, {
    database,
    logger: false,
    listen: false,
    bootstrapKey: false,
    telemetry: false,
  });
  try {
    const res = await node.http!.inject({ method: 'GET', url: '/openapi.json' });
    if (res.statusCode !== 200) throw new Error(`/openapi.json answered ${res.statusCode}`);
    return res.json();
  } finally {
    await node.stop();
  }
}
