import {
  ROOT_CONTEXT,
  SpanKind,
  trace,
  type Attributes,
  type Link,
  type SpanContext,
} from '@opentelemetry/api';
import { recordProjectionBatch } from './metrics.ts';
import { ATTR } from './metrics.ts';
import { inSpan } from './spans.ts';
import { spanContextFromTraceparent } from './trace-context.ts';

/** What a batch span needs of a record: a `StoredRecord` (any log adapter) fits. */
export interface TracedRecord {
  type: string;
  metadata: { traceparent?: string | undefined };
}

/** The SDK's default link limit; more are dropped (and counted) by the SDK anyway. */
const MAX_LINKS = 128;

/**
 * Where a batch of records belongs in the traces that wrote them. Every distinct span that wrote
 * a record is linked. When all of them belong to one trace, the batch is also a child of the
 * first (so a request's trace continues into its projection); a batch mixing traces is a root
 * span with links only, since one parent would misattribute the others.
 */
export function batchParentage(records: readonly TracedRecord[]): {
  parent: SpanContext | undefined;
  links: Link[];
} {
  const seen = new Map<string, SpanContext>();
  for (const r of records) {
    const sc = spanContextFromTraceparent(r.metadata.traceparent);
    if (!sc) continue;
    const key = `${sc.traceId}-${sc.spanId}`;
    if (!seen.has(key)) seen.set(key, sc);
  }
  const contexts = [...seen.values()];
  const traces = new Set(contexts.map((c) => c.traceId));
  const parent = traces.size === 1 ? contexts[0] : undefined;
  const links = contexts
    .filter((c) => c !== parent)
    .slice(0, MAX_LINKS)
    .map((context) => ({ context }));
  return { parent, links };
}

/**
 * Wraps "apply these records" (one projection batch, its transaction included) in a consumer
 * span parented or linked to the records' trace contexts (see `batchParentage`), and records the
 * batch duration. Used by the Postgres-log runner and the Kafka runner alike. The span starts
 * from the root context, never from whatever happens to be active (a loop woken by an append
 * inside a request), and is active while `fn` runs.
 */
export async function traceRecordBatch<T>(
  projection: string,
  records: readonly TracedRecord[],
  fn: () => Promise<T>,
  attributes: Attributes = {},
): Promise<T> {
  const { parent, links } = batchParentage(records);
  const types = [...new Set(records.map((r) => r.type))].sort();
  const started = performance.now();
  let outcome: 'ok' | 'error' = 'error';
  try {
    const result = await inSpan(
      `project ${projection}`,
      {
        kind: SpanKind.CONSUMER,
        parent: parent ? trace.setSpanContext(ROOT_CONTEXT, parent) : ROOT_CONTEXT,
        links,
        attributes: {
          [ATTR.projection]: projection,
          'messaging.batch.message_count': records.length,
          'stratagate.record.types': types,
          ...attributes,
        },
      },
      fn,
    );
    outcome = 'ok';
    return result;
  } finally {
    recordProjectionBatch(projection, (performance.now() - started) / 1000, outcome);
  }
}
