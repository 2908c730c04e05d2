import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { traceLogMixin } from './log-mixin.ts';
import { inSpan } from './spans.ts';
import { installTestTelemetry, type TestTelemetry } from './testing.ts';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: pino({ mixin: traceLogMixin }, stream) };
}

describe('traceLogMixin', () => {
  let telemetry: TestTelemetry;
  beforeAll(() => {
    telemetry = installTestTelemetry();
  });
  afterAll(() => telemetry.shutdown());

  it('adds the active span ids to every line, child loggers included', async () => {
    const { lines, logger } = capture();
    logger.info('before');
    let ids = { traceId: '', spanId: '' };
    await inSpan('work', {}, async (span) => {
      ids = span.spanContext();
      logger.info('inside');
      await Promise.resolve();
      logger.child({ component: 'x' }).warn({ n: 1 }, 'child');
    });
    logger.info('after');
    expect(lines.map((l) => l.msg)).toEqual(['before', 'inside', 'child', 'after']);
    expect(lines[0]).not.toHaveProperty('trace_id');
    expect(lines[3]).not.toHaveProperty('trace_id');
    for (const line of lines.slice(1, 3)) {
      expect(line).toMatchObject({ trace_id: ids.traceId, span_id: ids.spanId, trace_flags: '01' });
    }
    expect(lines[2]).toMatchObject({ component: 'x', n: 1 });
  });
});
