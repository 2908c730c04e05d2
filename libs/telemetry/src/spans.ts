import {
  context,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type SpanOptions,
  type Tracer,
} from '@opentelemetry/api';

export const INSTRUMENTATION_SCOPE = 'stratagate';

/**
 * Looked up on every use: the API's proxy hands out a no-op tracer until a provider is
 * registered, and a tracer cached across a provider change (tests) would keep the old one.
 */
export function tracer(): Tracer {
  return trace.getTracer(INSTRUMENTATION_SCOPE);
}

/** Marks the span failed with the error recorded as an exception event. */
export function recordSpanError(span: Span, error: unknown): void {
  const e = error instanceof Error ? error : new Error(String(error));
  span.recordException(e);
  span.setStatus({ code: SpanStatusCode.ERROR, message: e.message });
}

/** `recordSpanError` on the active span, if any (code that runs inside `inSpan`). */
export function recordActiveSpanError(error: unknown): void {
  const span = trace.getActiveSpan();
  if (span) recordSpanError(span, error);
}

export interface InSpanOptions extends SpanOptions {
  /** Parent context; default the active one. */
  parent?: Context;
}

/**
 * Runs `fn` in a new active span that ends when `fn` settles; a thrown error is recorded on the
 * span (status ERROR) and rethrown.
 */
export async function inSpan<T>(
  name: string,
  options: InSpanOptions,
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  const { parent, ...spanOptions } = options;
  return tracer().startActiveSpan(
    name,
    spanOptions,
    parent ?? context.active(),
    async (span: Span) => {
      try {
        return await fn(span);
      } catch (error) {
        recordSpanError(span, error);
        throw error;
      } finally {
        span.end();
      }
    },
  );
}
