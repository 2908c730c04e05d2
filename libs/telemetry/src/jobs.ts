import { SpanKind, type Attributes, type Span } from '@opentelemetry/api';
import { recordConsolidationJob, type JobOutcome } from './metrics.ts';
import { ATTR } from './metrics.ts';
import { inSpan } from './spans.ts';
import { contextFromTraceparent } from './trace-context.ts';

/**
 * Runs one consolidation job in a span that continues the trace of the record that made the job
 * due (`traceparent`; a root span when unknown), and records the job's duration. `fn` returns
 * the outcome: a failure the job recorded as a record (DerivationFailed) is 'failed', not thrown.
 * Records appended inside `fn` carry this span's trace context (`newRecord` reads it).
 */
export async function traceConsolidationJob(
  job: string,
  traceparent: string | undefined,
  attributes: Attributes,
  fn: (span: Span) => Promise<JobOutcome>,
): Promise<JobOutcome> {
  const started = performance.now();
  let outcome: JobOutcome = 'error';
  try {
    outcome = await inSpan(
      `consolidate ${job}`,
      {
        kind: SpanKind.INTERNAL,
        parent: contextFromTraceparent(traceparent),
        attributes: { [ATTR.job]: job, ...attributes },
      },
      async (span) => {
        const result = await fn(span);
        span.setAttribute(ATTR.outcome, result);
        return result;
      },
    );
    return outcome;
  } finally {
    recordConsolidationJob(job, (performance.now() - started) / 1000, outcome);
  }
}
