import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRIC, recordAppended, recordConsumerLag } from './metrics.ts';
import { batchParentage, traceRecordBatch } from './record-batch.ts';
import { traceConsolidationJob } from './jobs.ts';
import { inSpan } from './spans.ts';
import { installTestTelemetry, type TestTelemetry } from './testing.ts';
import { traceparentOf } from './trace-context.ts';

const A = 'a'.repeat(32);
const B = 'b'.repeat(32);
const tp = (trace: string, span: string) => `00-${trace}-${span}-01`;
const rec = (type: string, traceparent?: string) => ({ type, metadata: { traceparent } });

describe('batchParentage', () => {
  it('parents a batch of one trace to its first record and links the other spans', () => {
    const { parent, links } = batchParentage([
      rec('TurnRecorded', tp(A, '1'.repeat(16))),
      rec('BlockSealed', tp(A, '1'.repeat(16))),
      rec('TurnRecorded', tp(A, '2'.repeat(16))),
      rec('TurnRecorded'),
    ]);
    expect(parent).toMatchObject({ traceId: A, spanId: '1'.repeat(16), isRemote: true });
    expect(links.map((l) => l.context.spanId)).toEqual(['2'.repeat(16)]);
  });

  it('links every span of a batch mixing traces, with no parent', () => {
    const { parent, links } = batchParentage([
      rec('TurnRecorded', tp(A, '1'.repeat(16))),
      rec('TurnRecorded', tp(B, '2'.repeat(16))),
      rec('TurnRecorded', 'garbage'),
    ]);
    expect(parent).toBeUndefined();
    expect(links.map((l) => `${l.context.traceId}/${l.context.spanId}`)).toEqual([
      `${A}/${'1'.repeat(16)}`,
      `${B}/${'2'.repeat(16)}`,
    ]);
  });

  it('is a root without links when no record carries trace context', () => {
    expect(batchParentage([rec('TurnRecorded')])).toEqual({ parent: undefined, links: [] });
  });
});

describe('traceRecordBatch and job spans', () => {
  let telemetry: TestTelemetry;
  beforeAll(() => {
    telemetry = installTestTelemetry();
  });
  afterAll(() => telemetry.shutdown());

  it('runs the batch in a consumer span of the records’ trace, not of the caller’s', async () => {
    let inside: string | undefined;
    await inSpan('unrelated request', {}, () =>
      traceRecordBatch('core', [rec('BlockSealed', tp(A, '1'.repeat(16)))], async () => {
        inside = traceparentOf();
      }),
    );
    const span = telemetry.spans().find((s) => s.name === 'project core')!;
    expect(span.kind).toBe(SpanKind.CONSUMER);
    expect(span.spanContext().traceId).toBe(A);
    expect(span.parentSpanContext?.spanId).toBe('1'.repeat(16));
    expect(span.attributes).toMatchObject({
      'stratagate.projection': 'core',
      'messaging.batch.message_count': 1,
      'stratagate.record.types': ['BlockSealed'],
    });
    expect(inside).toBe(tp(A, span.spanContext().spanId));
  });

  it('records a failed batch on the span and rethrows', async () => {
    await expect(
      traceRecordBatch('failing', [rec('TurnRecorded')], async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const span = telemetry.spans().find((s) => s.name === 'project failing')!;
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'boom' });
    expect(span.events.map((e) => e.name)).toEqual(['exception']);
    expect(span.parentSpanContext).toBeUndefined();
  });

  it('continues a job from the traceparent that made it due', async () => {
    const outcome = await traceConsolidationJob(
      'summary',
      tp(B, '3'.repeat(16)),
      { 'stratagate.block.id': 'blk_1' },
      async () => 'succeeded',
    );
    expect(outcome).toBe('succeeded');
    const span = telemetry.spans().find((s) => s.name === 'consolidate summary')!;
    expect(span.spanContext().traceId).toBe(B);
    expect(span.parentSpanContext?.spanId).toBe('3'.repeat(16));
    expect(span.attributes).toMatchObject({
      'stratagate.job': 'summary',
      'stratagate.outcome': 'succeeded',
      'stratagate.block.id': 'blk_1',
    });
  });

  it('exports the instruments', async () => {
    recordAppended('postgres-table(log)', [
      rec('TurnRecorded'),
      rec('TurnRecorded'),
      rec('BlockSealed'),
    ]);
    recordConsumerLag('core', undefined, 7);
    recordConsumerLag('core', 2, 3);
    recordConsumerLag('core', 2, -1); // clamps: a checkpoint past a stale head is no lag

    const appended = await telemetry.metric(METRIC.recordsAppended);
    expect(appended).toEqual(
      expect.arrayContaining([
        {
          attributes: {
            'stratagate.record.type': 'TurnRecorded',
            'stratagate.log.backend': 'postgres-table(log)',
          },
          value: 2,
        },
        {
          attributes: {
            'stratagate.record.type': 'BlockSealed',
            'stratagate.log.backend': 'postgres-table(log)',
          },
          value: 1,
        },
      ]),
    );
    const lag = await telemetry.metric(METRIC.projectionLag);
    expect(lag).toEqual(
      expect.arrayContaining([
        { attributes: { 'stratagate.projection': 'core' }, value: 7 },
        { attributes: { 'stratagate.projection': 'core', 'stratagate.partition': '2' }, value: 0 },
      ]),
    );
    const batches = await telemetry.metric(METRIC.projectionBatchDuration);
    expect(batches.find((p) => p.attributes['stratagate.outcome'] === 'ok')?.value).toBe(1);
    expect(batches.find((p) => p.attributes['stratagate.outcome'] === 'error')?.value).toBe(1);
    const jobs = await telemetry.metric(METRIC.consolidationJobDuration);
    expect(jobs).toMatchObject([
      { attributes: { 'stratagate.job': 'summary', 'stratagate.outcome': 'succeeded' }, value: 1 },
    ]);
  });
});
