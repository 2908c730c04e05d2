import { context, isSpanContextValid, trace } from '@opentelemetry/api';

export interface TraceLogFields {
  trace_id?: string;
  span_id?: string;
  trace_flags?: string;
}

/**
 * pino `mixin`: adds the active span's ids to every log line written while a span is active
 * (`pino({ mixin: traceLogMixin })`); nothing outside spans. Child loggers inherit it.
 */
export function traceLogMixin(): TraceLogFields {
  const span = trace.getSpan(context.active());
  if (!span) return {};
  const sc = span.spanContext();
  if (!isSpanContextValid(sc)) return {};
  return {
    trace_id: sc.traceId,
    span_id: sc.spanId,
    trace_flags: `0${sc.traceFlags.toString(16)}`.slice(-2),
  };
}
