import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { context } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { StoredRecord } from '@stratagate/domain';
import { describeBackend } from '@stratagate/store/testing';
import { contextFromTraceparent, METRIC, traceLogMixin } from '@stratagate/telemetry';
import { installTestTelemetry, type TestTelemetry } from '@stratagate/telemetry/testing';
import { startTestNode, turn, type TestNode } from './harness.ts';

const SPACE = 'otel';
const S = `/v1/spaces/${SPACE}`;

describe(`telemetry: one trace from a request to its consolidation (${describeBackend()})`, () => {
  let telemetry: TestTelemetry;
  let t: TestNode;
  beforeAll(async () => {
    // Before the node: the first initialisation in a process wins.
    telemetry = installTestTelemetry();
    t = await startTestNode('telemetry');
  });
  afterAll(async () => {
    await t?.stop();
    await telemetry?.shutdown();
  });

  const records = async (): Promise<StoredRecord[]> => t.node.log.readAll(0, 10_000);
  const spanId = (s: ReadableSpan) => s.spanContext().spanId;
  const parentId = (s: ReadableSpan) => s.parentSpanContext?.spanId;
  const batchOf = (type: string) =>
    telemetry
      .spans()
      .find(
        (s) =>
          s.name === 'project core' &&
          (s.attributes['stratagate.record.types'] as string[]).includes(type),
      );

  it('POST turns → seal → projector → summary job → BlockSummarized → projector', async () => {
    expect((await t.request('PUT', `${S}/settings`, { blockSize: 3 })).status).toBe(200);
    for (const i of [1, 2]) {
      expect((await t.request('POST', `${S}/turns`, turn(i))).status).toBe(202);
    }
    await t.settle(SPACE);

    // The sealing turn, sent by a client that is itself traced.
    const TRACE = randomBytes(16).toString('hex');
    const CLIENT = randomBytes(8).toString('hex');
    const res = await t.node.http!.inject({
      method: 'POST',
      url: `${S}/turns`,
      headers: { authorization: `Bearer ${t.key}`, traceparent: `00-${TRACE}-${CLIENT}-01` },
      payload: turn(3),
    });
    expect(res.statusCode).toBe(202);
    const blockId = res.json().sealedBlockId as string;
    expect(blockId).toMatch(/^blk_/);
    await t.settle(SPACE);
    await vi.waitFor(() => expect(batchOf('GraphProjected')).toBeDefined(), { timeout: 10_000 });

    // 1. The request's server span continues the client's trace.
    const http = telemetry
      .spans()
      .find((s) => s.name === 'POST /v1/spaces/:spaceId/turns' && parentId(s) === CLIENT)!;
    expect(http).toBeDefined();
    expect(http.spanContext().traceId).toBe(TRACE);
    expect(http.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/v1/spaces/:spaceId/turns',
      'http.response.status_code': 202,
    });

    // 2. The records it appended carry its trace context.
    const log = await records();
    const sealed = log.find((r) => r.type === 'BlockSealed')!;
    const turn3 = log.find(
      (r) => r.type === 'TurnRecorded' && (r.data as { turnId: string }).turnId === turn(3).turnId,
    )!;
    expect(sealed.metadata.traceparent).toBe(`00-${TRACE}-${spanId(http)}-01`);
    expect(turn3.metadata.traceparent).toBe(sealed.metadata.traceparent);
    // Turns sent without a traceparent start traces of their own.
    const turn1 = log.find((r) => r.type === 'TurnRecorded')!;
    expect(turn1.metadata.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(turn1.metadata.traceparent).not.toContain(TRACE);

    // 3. The projector batch that applied them is a child of the request span.
    const sealBatch = batchOf('BlockSealed')!;
    expect(sealBatch.spanContext().traceId).toBe(TRACE);
    expect(parentId(sealBatch)).toBe(spanId(http));

    // 4. The summary job continues the trace of the seal that made it due.
    const job = (name: string) =>
      telemetry
        .spans()
        .find(
          (s) =>
            s.name === `consolidate ${name}` && s.attributes['stratagate.block.id'] === blockId,
        )!;
    const summary = job('summary');
    expect(summary.spanContext().traceId).toBe(TRACE);
    expect(parentId(summary)).toBe(spanId(http));
    expect(summary.attributes['stratagate.outcome']).toBe('succeeded');

    // 5. Its record carries the job's context, and the batch applying it joins the trace.
    const summarized = log.find((r) => r.type === 'BlockSummarized')!;
    expect(summarized.metadata.traceparent).toBe(`00-${TRACE}-${spanId(summary)}-01`);
    const summaryBatch = batchOf('BlockSummarized')!;
    expect(summaryBatch.spanContext().traceId).toBe(TRACE);
    expect(parentId(summaryBatch)).toBe(spanId(summary));

    // Extraction and graph jobs follow the records before them, in the same trace.
    for (const name of ['extraction', 'graph']) {
      expect(job(name).spanContext().traceId).toBe(TRACE);
    }

    // One connected trace: every span's parent is the client's span or another span of it.
    const inTrace = telemetry.spans().filter((s) => s.spanContext().traceId === TRACE);
    const ids = new Set(inTrace.map(spanId));
    for (const s of inTrace) expect([CLIENT, ...ids]).toContain(parentId(s));
    expect(inTrace.filter((s) => parentId(s) === CLIENT)).toEqual([http]);
    expect(ids.size).toBeGreaterThanOrEqual(7); // request, 3 jobs, 3+ batches

    // A log line written in this trace's context names it (harness nodes log nothing).
    const lines: { trace_id?: string; msg: string }[] = [];
    const logger = pino(
      { mixin: traceLogMixin },
      new Writable({
        write(chunk, _enc, done) {
          lines.push(JSON.parse(String(chunk)));
          done();
        },
      }),
    );
    context.with(contextFromTraceparent(summarized.metadata.traceparent), () =>
      logger.info('continuing the summary job'),
    );
    expect(lines).toMatchObject([{ trace_id: TRACE, msg: 'continuing the summary job' }]);
  });

  it('records the metric instruments', async () => {
    const appended = await telemetry.metric(METRIC.recordsAppended);
    const count = (type: string) =>
      appended
        .filter((p) => p.attributes['stratagate.record.type'] === type)
        .reduce((n, p) => n + p.value, 0);
    expect(count('TurnRecorded')).toBe(3);
    expect(count('BlockSealed')).toBe(1);
    expect(count('BlockSummarized')).toBe(1);
    expect(appended[0]!.attributes['stratagate.log.backend']).toBe(t.node.log.name);

    const batches = await telemetry.metric(METRIC.projectionBatchDuration);
    const ok = batches.find(
      (p) =>
        p.attributes['stratagate.projection'] === 'core' &&
        p.attributes['stratagate.outcome'] === 'ok',
    )!;
    expect(ok.value).toBeGreaterThanOrEqual(4);
    expect(ok.sum).toBeGreaterThan(0);

    const lag = await telemetry.metric(METRIC.projectionLag);
    expect(lag).toContainEqual({ attributes: { 'stratagate.projection': 'core' }, value: 0 });

    const jobs = await telemetry.metric(METRIC.consolidationJobDuration);
    expect(
      jobs.find(
        (p) =>
          p.attributes['stratagate.job'] === 'summary' &&
          p.attributes['stratagate.outcome'] === 'succeeded',
      )?.value,
    ).toBe(1);
  });
});
