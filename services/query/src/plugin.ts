import type { TypedApp } from '@stratagate/http';
import { blockRoutes } from './blocks.route.ts';
import { queryContext, type QueryServices } from './context.ts';
import { batchRoutes, eventGateRoutes } from './evidence.route.ts';
import { graphSearchRoutes } from './graph-search.route.ts';
import { graphRoutes } from './graph.route.ts';
import { memoryEventRoutes } from './memory-events.route.ts';
import { profileRoutes } from './profiles.route.ts';
import { recallRoutes } from './recall.route.ts';
import { rememberRoutes } from './remember.route.ts';
import { searchRoutes } from './search.route.ts';
import { spaceRoutes } from './spaces.route.ts';
import { topicRoutes } from './topics.route.ts';

/**
 * The query service as one Fastify plugin: every read, search, gate and recall operation. Each
 * request gets its own context, pinned to the live read-model schema as of its start (before its
 * body is parsed), so it never mixes two versions if a switch lands while it runs (ADR 0009).
 */
export function queryPlugin(services: QueryServices) {
  return async (app: TypedApp): Promise<void> => {
    pinRequestContext(app, services);
    for (const routes of [
      spaceRoutes,
      blockRoutes,
      memoryEventRoutes,
      graphRoutes,
      eventGateRoutes,
      batchRoutes,
      searchRoutes,
      graphSearchRoutes,
      recallRoutes,
      rememberRoutes,
      profileRoutes,
      topicRoutes,
    ]) {
      routes(app);
    }
  };
}

/**
 * Gives each request of `app`'s scope its query context when it starts: the live read-model
 * schema is looked up once (a cached lookup) before the body is parsed.
 */
export function pinRequestContext(app: TypedApp, services: QueryServices): void {
  app.decorateRequest('queryContext', undefined);
  app.addHook('onRequest', async (request) => {
    request.queryContext = await queryContext(services);
  });
}
