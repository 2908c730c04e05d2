import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyRequest,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
} from 'fastify';
import {
  hasZodFastifySchemaValidationErrors,
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import { AppError, unauthorized } from './errors.ts';
import type { ApiKeyStore, Principal } from './api-keys.ts';
import { installRequestTracing, recordRequestError, withRequestContext } from './tracing.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

export type HttpApp = FastifyInstance;
export type TypedApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  ZodTypeProvider
>;

export interface HttpAppOptions {
  apiKeys: ApiKeyStore;
  logger?: Logger | false;
  /** Largest accepted request body in bytes. */
  bodyLimit?: number;
  /** Readiness: resolves true when every dependency answers. */
  ready?: () => Promise<boolean>;
  /** Route plugins of the roles this process serves (ingest, query). */
  routes: ((app: TypedApp) => void)[];
}

/** Built, not started: tests call `inject`, `main` calls `listen`. */
export async function buildHttpApp(options: HttpAppOptions): Promise<HttpApp> {
  const app = Fastify({
    ...(options.logger
      ? { loggerInstance: options.logger as FastifyBaseLogger }
      : { logger: false }),
    bodyLimit: options.bodyLimit ?? 2 * 1024 * 1024,
  });
  // First: its onRoute hook must see every route, its onRequest hook run before auth.
  installRequestTracing(app);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  await app.register(fastifySwagger, {
    openapi: {
      info: {
        title: 'StrataGate API',
        description:
          'Event-sourced long-term memory for AI agents. Every request needs `Authorization: Bearer <api key>`.',
        version: '0.1.0',
      },
      components: {
        securitySchemes: { apiKey: { type: 'http', scheme: 'bearer' } },
      },
      security: [{ apiKey: [] }],
    },
    transform: jsonSchemaTransform,
  });
  // The docs page: Swagger UI over the same document, served from the package's own assets (no
  // network). Outside /v1, so it needs no key; "Authorize" takes one for "Try it out".
  await app.register(fastifySwaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true },
    staticCSP: true,
  });

  // With the request's span active, so the "request failed" line carries its trace id.
  app.setErrorHandler((error, request, reply) =>
    withRequestContext(request, () => {
      if (hasZodFastifySchemaValidationErrors(error)) {
        return reply.code(400).send({
          error: {
            code: 'invalid_request',
            message: `request ${error.validationContext ?? 'input'} is invalid`,
            issues: error.validation.map((v) => ({
              in: error.validationContext,
              path: v.instancePath || '/',
              message: v.message,
            })),
          },
        });
      }
      if (error instanceof AppError) {
        return reply.code(error.status).send({
          error: { code: error.code, message: error.message, details: error.details },
        });
      }
      const e = error as { statusCode?: number; code?: string; message: string };
      if (e.statusCode === 413 || e.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
        return reply.code(413).send({
          error: {
            code: 'payload_too_large',
            message: 'request body exceeds the configured limit',
          },
        });
      }
      if (e.statusCode && e.statusCode >= 400 && e.statusCode < 500) {
        return reply.code(e.statusCode).send({
          error: { code: (e.code ?? 'bad_request').toLowerCase(), message: e.message },
        });
      }
      recordRequestError(request, error);
      request.log.error({ err: error }, 'request failed');
      return reply.code(500).send({ error: { code: 'internal', message: 'internal error' } });
    }),
  );
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({
      error: { code: 'route_not_found', message: `no route ${request.method} ${request.url}` },
    }),
  );

  app.addHook('onRequest', async (request: FastifyRequest) => {
    if (!request.url.startsWith('/v1/')) return;
    const header = request.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
    if (!match) throw unauthorized();
    const principal = await options.apiKeys.authenticate(match[1]!);
    if (!principal) throw unauthorized();
    request.principal = principal;
  });

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    const ok = options.ready ? await options.ready().catch(() => false) : true;
    return reply.code(ok ? 200 : 503).send({ status: ok ? 'ready' : 'not_ready' });
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  const typed = app.withTypeProvider<ZodTypeProvider>();
  for (const register of options.routes) register(typed);
  await app.ready();
  return app;
}

/** The authenticated tenant of a /v1 request (the auth hook guarantees it is set). */
export function tenantOf(request: FastifyRequest): string {
  if (!request.principal) throw unauthorized();
  return request.principal.tenantId;
}
