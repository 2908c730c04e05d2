import type { FastifyRequest } from 'fastify';
import { tenantOf } from './app.ts';

/** The space a /v1 request names in its path, in the tenant of its API key (MM-SPACE-1). */
export function spaceOf(request: FastifyRequest & { params: { spaceId: string } }): {
  tenantId: string;
  spaceId: string;
} {
  return { tenantId: tenantOf(request), spaceId: request.params.spaceId };
}
