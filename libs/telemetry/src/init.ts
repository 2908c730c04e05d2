import { randomUUID } from 'node:crypto';
import { context, metrics, propagation, trace, type Attributes } from '@opentelemetry/api';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import {
  MeterProvider,
  PeriodicExportingMetricReader,
  type IMetricReader,
} from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import {
  ATTR_SERVICE_INSTANCE_ID,
  ATTR_SERVICE_NAME,
  ATTR_SERVICE_VERSION,
} from '@opentelemetry/semantic-conventions';

export interface TelemetryOptions {
  /** `service.name`: one per role set, see `serviceNameFor`. */
  serviceName: string;
  serviceVersion?: string;
  /** `service.instance.id`; a fresh UUID per process by default. */
  serviceInstanceId?: string;
  /**
   * OTLP/HTTP base URL (e.g. `http://collector:4318`): traces go to `/v1/traces`, metrics to
   * `/v1/metrics`. Unset: spans and metrics are made (trace ids in logs and records) but nothing
   * is exported.
   */
  otlpEndpoint?: string | undefined;
  /** Extra headers for both OTLP exporters (e.g. a collector's auth token). */
  otlpHeaders?: Record<string, string>;
  /** How often metrics are pushed to the OTLP endpoint (default 60 s). */
  metricExportIntervalMs?: number;
  resourceAttributes?: Attributes;
  /** More span processors (tests: a SimpleSpanProcessor over an InMemorySpanExporter). */
  spanProcessors?: SpanProcessor[];
  /** More metric readers (tests: a reader they collect from). */
  metricReaders?: IMetricReader[];
}

/** Flushes what is buffered, then unregisters the providers. Safe to call twice. */
export type TelemetryShutdown = () => Promise<void>;

/** Process-wide: the API's globals live on globalThis, so the marker does too. */
const INSTALLED = Symbol.for('stratagate.telemetry.installed');
type Global = typeof globalThis & { [INSTALLED]?: true };

/** `stratagate` for all roles in one process, else `stratagate-<role>[-<role>…]`. */
export function serviceNameFor(roles: readonly string[]): string {
  const all = ['consolidator', 'ingest', 'projector', 'query'];
  const sorted = [...new Set(roles)].sort();
  if (sorted.length === 0 || all.every((r) => sorted.includes(r))) return 'stratagate';
  return `stratagate-${sorted.join('-')}`;
}

/**
 * Registers the global tracer provider (AsyncLocalStorage context, W3C trace-context and
 * baggage propagators) and, when anything reads metrics, the global meter provider.
 *
 * The first call in a process wins: a later call (a second node in one test process, or a test
 * that installed in-memory exporters before starting a node) changes nothing and gets a
 * shutdown that does nothing, so only the installer tears the providers down.
 */
export function initTelemetry(options: TelemetryOptions): TelemetryShutdown {
  const g = globalThis as Global;
  if (g[INSTALLED]) return async () => {};
  g[INSTALLED] = true;

  const resource = defaultResource().merge(
    resourceFromAttributes({
      [ATTR_SERVICE_NAME]: options.serviceName,
      [ATTR_SERVICE_INSTANCE_ID]: options.serviceInstanceId ?? randomUUID(),
      ...(options.serviceVersion ? { [ATTR_SERVICE_VERSION]: options.serviceVersion } : {}),
      ...options.resourceAttributes,
    }),
  );
  const base = options.otlpEndpoint?.replace(/\/+$/, '');
  const headers = options.otlpHeaders ?? {};

  const spanProcessors = [...(options.spanProcessors ?? [])];
  if (base) {
    spanProcessors.push(
      new BatchSpanProcessor(new OTLPTraceExporter({ url: `${base}/v1/traces`, headers })),
    );
  }
  const tracerProvider = new NodeTracerProvider({ resource, spanProcessors });
  tracerProvider.register();

  const readers = [...(options.metricReaders ?? [])];
  if (base) {
    readers.push(
      new PeriodicExportingMetricReader({
        exporter: new OTLPMetricExporter({ url: `${base}/v1/metrics`, headers }),
        exportIntervalMillis: options.metricExportIntervalMs ?? 60_000,
      }),
    );
  }
  // Without a reader the API's no-op meter is cheaper than an SDK that aggregates for nobody.
  const meterProvider = readers.length > 0 ? new MeterProvider({ resource, readers }) : null;
  if (meterProvider) metrics.setGlobalMeterProvider(meterProvider);

  let done: Promise<void> | null = null;
  return () => {
    done ??= (async () => {
      // Bounded: an unreachable collector must not hold up the process's shutdown.
      await Promise.race([
        Promise.allSettled([tracerProvider.shutdown(), meterProvider?.shutdown()]),
        new Promise((resolve) => setTimeout(resolve, 5_000).unref()),
      ]);
      trace.disable();
      if (meterProvider) metrics.disable();
      propagation.disable();
      context.disable();
      delete g[INSTALLED];
    })();
    return done;
  };
}
