import type { Attributes } from '@opentelemetry/api';
import { MetricReader, type DataPoint, type Histogram } from '@opentelemetry/sdk-metrics';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { initTelemetry } from './init.ts';

/** A reader that exports nowhere: tests pull with `collect()`. */
class PullMetricReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

export interface MetricPoint {
  attributes: Attributes;
  /** Counter and gauge value, or a histogram's count. */
  value: number;
  /** Histograms: the sum of recorded values. */
  sum?: number;
}

export interface TestTelemetry {
  /** Finished spans so far (exported synchronously on end). */
  spans(): ReadableSpan[];
  /** Data points of one metric, by name, as of now. */
  metric(name: string): Promise<MetricPoint[]>;
  shutdown(): Promise<void>;
}

/**
 * `initTelemetry` with an in-memory span exporter and a pull metric reader. Call it before
 * anything else in the process initialises telemetry (first call wins).
 */
export function installTestTelemetry(serviceName = 'stratagate-test'): TestTelemetry {
  const exporter = new InMemorySpanExporter();
  const reader = new PullMetricReader();
  const shutdown = initTelemetry({
    serviceName,
    spanProcessors: [new SimpleSpanProcessor(exporter)],
    metricReaders: [reader],
  });
  return {
    spans: () => exporter.getFinishedSpans(),
    async metric(name) {
      const { resourceMetrics } = await reader.collect();
      const points: MetricPoint[] = [];
      for (const scope of resourceMetrics.scopeMetrics) {
        for (const m of scope.metrics) {
          if (m.descriptor.name !== name) continue;
          for (const p of m.dataPoints as DataPoint<number | Histogram>[]) {
            points.push(
              typeof p.value === 'number'
                ? { attributes: p.attributes, value: p.value }
                : { attributes: p.attributes, value: p.value.count, sum: p.value.sum },
            );
          }
        }
      }
      return points;
    },
    shutdown,
  };
}
