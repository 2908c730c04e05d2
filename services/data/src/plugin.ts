import type { TypedApp } from '@stratagate/http';
import type { DataServices } from './context.ts';
import { erasureRoutes } from './erasure.route.ts';
import { importRoutes } from './imports.route.ts';
import { transferRoutes } from './transfer.route.ts';

/**
 * The data service as one Fastify plugin: a space's records out and in, erased for good, and
 * other AIs' memories imported.
 */
export function dataPlugin(services: DataServices) {
  return async (app: TypedApp): Promise<void> => {
    await transferRoutes(services)(app);
    erasureRoutes(services)(app);
    if (services.imports) importRoutes(services)(app);
  };
}
