import { context, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceNameFor } from './init.ts';
import { inSpan } from './spans.ts';
import { installTestTelemetry, type TestTelemetry } from './testing.ts';
import {
  contextFromTraceparent,
  spanContextFromTraceparent,
  traceparentOf,
} from './trace-context.ts';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const SPAN = 'b7ad6b7169203331';

describe('traceparent helpers', () => {
  let telemetry: TestTelemetry;
  beforeAll(() => {
    telemetry = installTestTelemetry();
  });
  afterAll(() => telemetry.shutdown());

  it('gives no traceparent outside a span', () => {
    expect(traceparentOf()).toBeUndefined();
    expect(traceparentOf(ROOT_CONTEXT)).toBeUndefined();
  });

  it('writes the active span as a W3C traceparent', async () => {
    await inSpan('outer', {}, async (span) => {
      const { traceId, spanId } = span.spanContext();
      expect(traceparentOf()).toBe(`00-${traceId}-${spanId}-01`);
      // Still there after an await: the AsyncLocalStorage context manager is registered.
      await new Promise((r) => setTimeout(r, 1));
      expect(traceparentOf()).toBe(`00-${traceId}-${spanId}-01`);
    });
  });

  it('reads a traceparent back as a remote parent', async () => {
    const tp = `00-${TRACE}-${SPAN}-01`;
    const sc = spanContextFromTraceparent(tp);
    expect(sc).toMatchObject({
      traceId: TRACE,
      spanId: SPAN,
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
    });
    await inSpan('child', { parent: contextFromTraceparent(tp) }, async (span) => {
      expect(span.spanContext().traceId).toBe(TRACE);
      expect(traceparentOf()).toMatch(new RegExp(`^00-${TRACE}-[0-9a-f]{16}-01$`));
    });
    const child = telemetry.spans().find((s) => s.name === 'child')!;
    expect(child.parentSpanContext?.spanId).toBe(SPAN);
  });

  it('round-trips: a span continued from a traceparent writes its own', () => {
    const ctx = contextFromTraceparent(`00-${TRACE}-${SPAN}-00`);
    expect(traceparentOf(ctx)).toBe(`00-${TRACE}-${SPAN}-00`);
  });

  it('ignores missing and malformed values', () => {
    const base = context.active();
    for (const bad of [
      undefined,
      '',
      'nonsense',
      `00-${'0'.repeat(32)}-${SPAN}-01`,
      `00-${TRACE}-xyz-01`,
    ]) {
      expect(spanContextFromTraceparent(bad)).toBeUndefined();
      expect(contextFromTraceparent(bad, base)).toBe(base);
    }
    expect(trace.getSpanContext(contextFromTraceparent('nonsense'))).toBeUndefined();
  });
});

describe('serviceNameFor', () => {
  it('names one process per role set', () => {
    expect(serviceNameFor(['ingest', 'projector', 'consolidator', 'query'])).toBe('stratagate');
    expect(serviceNameFor(['projector'])).toBe('stratagate-projector');
    expect(serviceNameFor(['query', 'ingest'])).toBe('stratagate-ingest-query');
  });
});
