import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
} from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
} from '@opentelemetry/semantic-conventions';
import { recordSpanError, tracer } from '@stratagate/telemetry';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Probes, the docs page and the console's files: frequent or static, never worth a trace. */
const untraced = (route: string) =>
  route === '/healthz' ||
  route === '/readyz' ||
  route.startsWith('/docs') ||
  route.startsWith('/console');

const active = new WeakMap<FastifyRequest, { span: Span; ctx: Context }>();

/**
 * A SERVER span per request, continuing an incoming `traceparent` header (through the globally
 * registered propagator). No auto-instrumentation: the span starts in `onRequest` and ends in
 * `onResponse` (or `onRequestAbort`). Route handlers, and the error handler through
 * `withRequestContext`, run with the span active, so records appended there carry its trace
 * context and log lines its ids. Must be installed before any route is added.
 */
export function installRequestTracing(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url;
    if (route !== undefined && untraced(route)) return done();
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const span = tracer().startSpan(
      route ? `${request.method} ${route}` : request.method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          [ATTR_HTTP_REQUEST_METHOD]: request.method,
          [ATTR_URL_PATH]: request.url.split('?', 1)[0],
          [ATTR_URL_SCHEME]: request.protocol,
          ...(route ? { [ATTR_HTTP_ROUTE]: route } : {}),
          // Joins the span to fastify's own request log lines (`reqId`).
          'stratagate.request.id': request.id,
        },
      },
      parent,
    );
    active.set(request, { span, ctx: trace.setSpan(parent, span) });
    done();
  });

  app.addHook('onRoute', (routeOptions) => {
    const handler = routeOptions.handler;
    routeOptions.handler = function traced(
      this: FastifyInstance,
      request: FastifyRequest,
      reply: FastifyReply,
    ) {
      const entry = active.get(request);
      if (!entry) return handler.call(this, request, reply);
      return context.with(entry.ctx, handler, this, request, reply);
    } as typeof handler;
  });

  app.addHook('onResponse', (request, reply, done) => {
    const entry = active.get(request);
    if (entry) {
      active.delete(request);
      const status = reply.statusCode;
      entry.span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
      // Server spans: 4xx is the client's error, not ours (semantic conventions).
      if (status >= 500) {
        entry.span.setAttribute(ATTR_ERROR_TYPE, String(status));
        entry.span.setStatus({ code: SpanStatusCode.ERROR });
      }
      entry.span.end();
    }
    done();
  });

  app.addHook('onRequestAbort', (request, done) => {
    const entry = active.get(request);
    if (entry) {
      active.delete(request);
      entry.span.setAttribute(ATTR_ERROR_TYPE, 'aborted');
      entry.span.setStatus({ code: SpanStatusCode.ERROR, message: 'client aborted the request' });
      entry.span.end();
    }
    done();
  });
}

/** Runs `fn` with the request's span active (the error handler); as-is when not traced. */
export function withRequestContext<T>(request: FastifyRequest, fn: () => T): T {
  const entry = active.get(request);
  return entry ? context.with(entry.ctx, fn) : fn();
}

/** Records an unexpected error (a 500) on the request's span. */
export function recordRequestError(request: FastifyRequest, error: unknown): void {
  const entry = active.get(request);
  if (entry) recordSpanError(entry.span, error);
}
