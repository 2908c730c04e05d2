/**
 * Decides whether a consolidation pass waits because others are appending fast (ADR 0026).
 *
 * Enrichment (summaries, extraction, graph) is the least urgent work on a shared machine: an
 * acknowledgement waits for CPU it takes, and the projector, whose lag is what agents read, too.
 * While the log grows by more than `aboveRecordsPerSecond` records a second not appended by this
 * consolidator (a burst of turns), passes wait. They wait at most `maxWaitMs` in one busy period:
 * under a sustained load they then run as usual until the rate falls once, so enrichment is late
 * by that much at most and never starved.
 *
 * The rate is measured between calls, from the log head (positions count records: the
 * Postgres-table log) less what this consolidator appended itself in between.
 */
export interface AppendRateGateOptions {
  /** Others' records per second above which passes wait; 0: never wait. */
  aboveRecordsPerSecond: number;
  /** Longest run of waiting in one busy period (ms). */
  maxWaitMs: number;
}

export interface AppendRateSample {
  /** A monotonic time in ms (performance.now()). */
  at: number;
  /** The log head position. */
  head: number;
  /** Records this consolidator has appended so far (a running count). */
  own: number;
}

export class AppendRateGate {
  private last: AppendRateSample | null = null;
  /** When the current busy period started waiting; null while quiet. */
  private busySince: number | null = null;

  constructor(private readonly options: AppendRateGateOptions) {}

  /** Others' appends per second since the previous sample (null for the first sample). */
  private rate(sample: AppendRateSample): number | null {
    const previous = this.last;
    this.last = sample;
    if (!previous || sample.at <= previous.at) return null;
    const others = sample.head - previous.head - (sample.own - previous.own);
    return (Math.max(0, others) * 1000) / (sample.at - previous.at);
  }

  /** True when the pass at `sample` should wait. */
  shouldWait(sample: AppendRateSample): boolean {
    const rate = this.rate(sample);
    if (this.options.aboveRecordsPerSecond <= 0 || rate === null) return false;
    if (rate <= this.options.aboveRecordsPerSecond) {
      this.busySince = null;
      return false;
    }
    this.busySince ??= sample.at;
    return sample.at - this.busySince < this.options.maxWaitMs;
  }
}
