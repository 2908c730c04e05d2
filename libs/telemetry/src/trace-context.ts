import {
  context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  trace,
  type Context,
  type SpanContext,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

/**
 * Record metadata carries W3C `traceparent` whatever propagators the process registered for HTTP
 * headers, so this module uses its own W3C propagator rather than the global one.
 */
const w3c = new W3CTraceContextPropagator();

/** The `traceparent` of the span active in `ctx` (default: now), or undefined without one. */
export function traceparentOf(ctx: Context = context.active()): string | undefined {
  const carrier: Record<string, string> = {};
  w3c.inject(ctx, carrier, defaultTextMapSetter);
  return carrier.traceparent;
}

/**
 * A context whose (remote) parent is the span a record's `traceparent` names; `base` unchanged
 * when it is missing or malformed. Start with ROOT_CONTEXT so an unrelated active span (a loop
 * woken inside a request) never becomes the parent by accident.
 */
export function contextFromTraceparent(
  traceparent: string | undefined,
  base: Context = ROOT_CONTEXT,
): Context {
  if (!traceparent) return base;
  return w3c.extract(base, { traceparent }, defaultTextMapGetter);
}

/** The span context a `traceparent` names, or undefined when it is missing or malformed. */
export function spanContextFromTraceparent(
  traceparent: string | undefined,
): SpanContext | undefined {
  if (!traceparent) return undefined;
  return trace.getSpanContext(contextFromTraceparent(traceparent));
}
