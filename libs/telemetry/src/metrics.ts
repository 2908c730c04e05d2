import {
  metrics,
  type Attributes,
  type Counter,
  type Histogram,
  type MeterProvider,
  type ObservableResult,
} from '@opentelemetry/api';
import { INSTRUMENTATION_SCOPE } from './spans.ts';

/** Metric names and attribute keys: the exported contract (ADR 0011). */
export const METRIC = {
  recordsAppended: 'stratagate.log.records.appended',
  projectionBatchDuration: 'stratagate.projection.batch.duration',
  projectionLag: 'stratagate.projection.lag',
  consolidationJobDuration: 'stratagate.consolidation.job.duration',
  ingestBackpressureWait: 'stratagate.ingest.backpressure.wait',
  searchCacheBytes: 'stratagate.search.cache.bytes',
  searchCacheTerms: 'stratagate.search.cache.terms',
  searchCacheHits: 'stratagate.search.cache.hits',
  searchCacheMisses: 'stratagate.search.cache.misses',
} as const;

export const ATTR = {
  recordType: 'stratagate.record.type',
  logBackend: 'stratagate.log.backend',
  projection: 'stratagate.projection',
  partition: 'stratagate.partition',
  job: 'stratagate.job',
  outcome: 'stratagate.outcome',
} as const;

/** Seconds; from a 1 ms batch to a slow model call. */
const DURATION_BUCKETS = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120,
];

interface Instruments {
  recordsAppended: Counter;
  projectionBatchDuration: Histogram;
  consolidationJobDuration: Histogram;
  ingestBackpressureWait: Histogram;
}

/** Last lag reported per projection and partition; read by the observable gauge on collection. */
const lags = new Map<string, { lag: number; attributes: Attributes }>();

let cache: { provider: MeterProvider; instruments: Instruments } | null = null;

/**
 * The API has no proxy meter provider: instruments made before `initTelemetry` (or kept across a
 * provider change) would stay no-ops. So they are made on first use per registered provider.
 */
function instruments(): Instruments {
  const provider = metrics.getMeterProvider();
  if (cache?.provider === provider) return cache.instruments;
  const meter = provider.getMeter(INSTRUMENTATION_SCOPE);
  const made: Instruments = {
    recordsAppended: meter.createCounter(METRIC.recordsAppended, {
      description: 'Records appended to the log',
      unit: '{record}',
    }),
    projectionBatchDuration: meter.createHistogram(METRIC.projectionBatchDuration, {
      description: 'Time to apply one batch of records to a projection, commit included',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
    consolidationJobDuration: meter.createHistogram(METRIC.consolidationJobDuration, {
      description: 'Time of one consolidation job (model call and append)',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
    ingestBackpressureWait: meter.createHistogram(METRIC.ingestBackpressureWait, {
      description:
        'Time a turn waited before its append while the projection lag was over its bound (ADR 0031)',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
  };
  meter
    .createObservableGauge(METRIC.projectionLag, {
      description:
        'Records a projection still has to apply: log head minus checkpoint (Kafka: high watermark minus offset, per partition)',
      unit: '{record}',
    })
    .addCallback((result: ObservableResult) => {
      for (const { lag, attributes } of lags.values()) result.observe(lag, attributes);
    });
  const cacheFigures: [
    name: string,
    kind: 'gauge' | 'counter',
    unit: string,
    description: string,
    of: keyof SearchCacheStats,
  ][] = [
    [
      METRIC.searchCacheBytes,
      'gauge',
      'By',
      'Bytes the query role’s search cache holds (postings and documents; ADR 0018)',
      'bytes',
    ],
    [
      METRIC.searchCacheTerms,
      'gauge',
      '{term}',
      'Terms whose postings the search cache holds',
      'terms',
    ],
    [
      METRIC.searchCacheHits,
      'counter',
      '{term}',
      'Term reads answered from the search cache (newer chunks laid over)',
      'hits',
    ],
    [
      METRIC.searchCacheMisses,
      'counter',
      '{term}',
      'Term reads that read the term’s postings whole',
      'misses',
    ],
  ];
  for (const [name, kind, unit, description, of] of cacheFigures) {
    const instrument =
      kind === 'gauge'
        ? meter.createObservableGauge(name, { description, unit })
        : meter.createObservableCounter(name, { description, unit });
    instrument.addCallback((result: ObservableResult) => {
      let sum = 0;
      for (const read of searchCaches) sum += read()[of];
      result.observe(sum);
    });
  }
  cache = { provider, instruments: made };
  return made;
}

/** What the search cache gauges read. */
export interface SearchCacheStats {
  bytes: number;
  terms: number;
  hits: number;
  misses: number;
}

const searchCaches = new Set<() => SearchCacheStats>();

/** Exports a search cache's figures (read on each collection) through the gauges above. */
export function observeSearchCache(read: () => SearchCacheStats): () => void {
  searchCaches.add(read);
  instruments();
  return () => searchCaches.delete(read);
}

/** Counts appended records by type and log backend (`MessageLog.name`). */
export function recordAppended(backend: string, records: readonly { type: string }[]): void {
  if (records.length === 0) return;
  const perType = new Map<string, number>();
  for (const r of records) perType.set(r.type, (perType.get(r.type) ?? 0) + 1);
  const counter = instruments().recordsAppended;
  for (const [type, n] of perType) {
    counter.add(n, { [ATTR.recordType]: type, [ATTR.logBackend]: backend });
  }
}

/**
 * How far a projection is behind: the Postgres runner reports head position minus checkpoint,
 * a Kafka consumer high watermark minus offset per partition. The gauge exports the last value.
 */
export function recordConsumerLag(
  projection: string,
  partition: number | string | undefined,
  lag: number,
): void {
  instruments(); // registers the gauge's callback with the current provider
  const attributes: Attributes = { [ATTR.projection]: projection };
  if (partition !== undefined) attributes[ATTR.partition] = String(partition);
  lags.set(`${projection}\u0000${partition ?? ''}`, { lag: Math.max(0, lag), attributes });
}

export function recordProjectionBatch(
  projection: string,
  seconds: number,
  outcome: 'ok' | 'error',
): void {
  instruments().projectionBatchDuration.record(seconds, {
    [ATTR.projection]: projection,
    [ATTR.outcome]: outcome,
  });
}

export type JobOutcome = 'succeeded' | 'failed' | 'aborted' | 'error';

export function recordConsolidationJob(job: string, seconds: number, outcome: JobOutcome): void {
  instruments().consolidationJobDuration.record(seconds, {
    [ATTR.job]: job,
    [ATTR.outcome]: outcome,
  });
}

/**
 * A turn that waited for the projection lag to come down before its append (ADR 0031):
 * `admitted` when the lag came back within the bound, `timed_out` when it went ahead after the
 * longest wait.
 */
export function recordBackpressureWait(seconds: number, outcome: 'admitted' | 'timed_out'): void {
  instruments().ingestBackpressureWait.record(seconds, { [ATTR.outcome]: outcome });
}
