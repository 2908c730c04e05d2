import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
} from 'fastify';
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import type { Logger } from 'pino';
import { invalidRequest, unauthorized } from './errors.ts';
import type { ApiKeyStore, Principal } from './api-keys.ts';
import { findUnstorableValue } from './body-scan.ts';
import {
  clientErrorReply,
  errorReply,
  MAX_PARAM_LENGTH,
  noRouteReply,
  rawHttpReply,
  shuttingDownReply,
} from './error-replies.ts';
import { installRequestTracing, recordRequestError, withRequestContext } from './tracing.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

/** What `/readyz` answers beyond ready or not: why not (e.g. `projection_stalled`). */
export interface Readiness {
  ready: boolean;
  reason?: string;
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
  /**
   * How long a client has to send a whole request, headers and body (default 30 s); a request
   * still incomplete then is answered 408 and its connection closed.
   */
  requestTimeoutMs?: number;
  /** Readiness: resolves true when every dependency answers. */
  ready?: () => Promise<boolean | Readiness>;
  /** The plugins of the services this process runs (ingest, query), each in its own scope. */
  routes: ((app: TypedApp) => void | Promise<void>)[];
}

/** Built, not started: tests call `inject`, `main` calls `listen`. */
export async function buildHttpApp(options: HttpAppOptions): Promise<HttpApp> {
  const requestTimeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const app = Fastify({
    ...(options.logger
      ? { loggerInstance: withSafeRequestLogs(options.logger) as FastifyBaseLogger }
      : { logger: false }),
    bodyLimit: options.bodyLimit ?? 2 * 1024 * 1024,
    // Ids valid by the API's patterns (up to 200 characters) are routed; longer segments are
    // refused as uri_too_long, never with the URL echoed.
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // A request must arrive whole within the timeout (Node checks it on an interval, so the
    // interval follows the timeout). No socket idle timeout: that would also cut an answer that
    // takes long to compute (remember with a model).
    requestTimeout,
    http: {
      requestTimeout,
      headersTimeout: Math.min(requestTimeout, 60_000),
      connectionsCheckingInterval: Math.min(1_000, Math.max(25, Math.floor(requestTimeout / 4))),
    },
    clientErrorHandler: answerClientError,
    // Answered in the envelope by the hook below instead of Fastify's own body.
    return503OnClosing: false,
    frameworkErrors: (error, request, reply) => sendError(error, request, reply),
  });
  // First: its onRoute hook must see every route, its onRequest hook run before auth.
  installRequestTracing(app);
  const routes = recordRoutes(app);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  acceptJsonOnly(app);
  await app.register(fastifySwagger, {
    openapi: {
      info: {
        title: 'StrataGate API',
        description:
          'Event-sourced long-term memory for AI agents. Every request needs `Authorization: Bearer <api key>`. Errors come in one envelope, `{"error":{"code","message","issues"?}}`; the codes are listed in docs/api-errors.md.',
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

  app.setErrorHandler((error, request, reply) => sendError(error, request, reply));
  app.setNotFoundHandler((request, reply) => {
    const answer = noRouteReply(request.method, routes.allowed(request.url));
    if (answer.headers) void reply.headers(answer.headers);
    return reply.code(answer.status).send(answer.body);
  });

  // While the server drains, new requests are refused in the envelope; the client retries
  // elsewhere or later.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (_request, reply) => {
    if (closing) {
      const answer = shuttingDownReply();
      return reply.code(answer.status).header('connection', 'close').send(answer.body);
    }
  });
  app.addHook('onRequest', async (request: FastifyRequest) => {
    if (!request.url.startsWith('/v1/')) return;
    const header = request.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
    if (!match) throw unauthorized();
    const principal = await options.apiKeys.authenticate(match[1]!);
    if (!principal) throw unauthorized();
    request.principal = principal;
  });
  // Once for every operation, before validation: what no store can keep is refused here.
  app.addHook('preValidation', async (request: FastifyRequest) => {
    // A body a route takes as a stream (an import file) is checked by that route as it reads;
    // walking the stream object itself would find its socket, not the request's content.
    const body = request.body instanceof Readable ? undefined : request.body;
    const issue =
      findUnstorableValue(request.query, 'querystring') ?? findUnstorableValue(body, 'body');
    if (issue) throw invalidRequest(`request ${issue.in} is invalid`, [issue]);
  });

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    const answer = options.ready ? await options.ready().catch(() => false) : true;
    const { ready, ...detail } = typeof answer === 'boolean' ? { ready: answer } : answer;
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', ...detail });
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  const typed = app.withTypeProvider<ZodTypeProvider>();
  for (const plugin of options.routes) await typed.register(async (scope) => plugin(scope));
  await app.ready();
  return app;
}

/** The authenticated tenant of a /v1 request (the auth hook guarantees it is set). */
export function tenantOf(request: FastifyRequest): string {
  if (!request.principal) throw unauthorized();
  return request.principal.tenantId;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** Answers an error in the envelope, with the request's span active; a 500 is logged. */
function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply) {
  return withRequestContext(request, () => {
    const answer = errorReply(error);
    if (answer.status >= 500) {
      recordRequestError(request, error);
      request.log.error({ err: error }, 'request failed');
    }
    if (answer.headers) void reply.headers(answer.headers);
    return reply.code(answer.status).send(answer.body);
  });
}

/**
 * Node's `clientError`: a request its parser refused or that did not arrive in time. Answered in
 * the envelope unless a response is already under way on the socket; then the socket is closed.
 * Logged by code only: the error carries the raw request bytes, query string and all.
 */
function answerClientError(
  this: FastifyInstance,
  error: Error & { code?: string },
  socket: Socket,
) {
  const answer = clientErrorReply(error);
  if (!answer || socket.destroyed) return;
  this.log.debug({ code: error.code, status: answer.status }, 'client error');
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) socket.write(rawHttpReply(answer));
  socket.destroy();
}

/**
 * JSON bodies only: no text/plain parser, so anything else is 415. An empty body is no body, so
 * an operation without one can be called by a client that always sends the JSON content type,
 * and one that needs a body says which field is missing.
 */
function acceptJsonOnly(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text === '') return done(null, undefined);
    parseJson(request, text, done);
  });
}

/** The methods each route pattern is served for, to tell a 405 from a 404. */
function recordRoutes(app: FastifyInstance) {
  const served: { pattern: RegExp; methods: string[] }[] = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const source = route.url
      .split('/')
      .map((part) =>
        part.startsWith(':')
          ? '[^/]+'
          : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*'),
      )
      .join('/');
    served.push({ pattern: new RegExp(`^${source}$`), methods });
  });
  return {
    allowed(url: string): string[] {
      const path = url.split('?', 1)[0]!;
      const methods = served.filter((r) => r.pattern.test(path)).flatMap((r) => r.methods);
      return [...new Set(methods)].sort();
    },
  };
}

/**
 * The logger the app logs through, with a request serializer that drops the query string: a key
 * sent as `?api_key=…` must never reach a log line.
 */
function withSafeRequestLogs(logger: Logger): Logger {
  return logger.child(
    {},
    {
      serializers: {
        req: (request: FastifyRequest) => ({
          method: request.method,
          url: withoutQuery(request.url),
          host: request.host,
          remoteAddress: request.ip,
          remotePort: request.socket?.remotePort,
        }),
      },
    },
  );
}

/** A URL as logs may show it: the path, and only a marker where a query string was. */
export function withoutQuery(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : `${url.slice(0, q)}?[redacted]`;
}
