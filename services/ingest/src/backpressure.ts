/**
 * Backpressure from projection lag (ADR 0031). Projection costs more CPU per turn than an
 * acknowledgement does, so a node whose roles share the machine's cores acknowledges turns faster
 * than it projects them: behind a long enough burst the read models fall arbitrarily far behind.
 * The gate keeps that lag bounded. While the oldest record the projector has not applied is older
 * than `maxLagMs`, a turn waits before it is appended, until the projector reports progress that
 * brings the lag back under the bound, or `maxWaitMs` has passed: a projector that is stopped or
 * stuck slows acknowledgements down, it never stops them.
 *
 * The lag is measured where the turns are appended: the gate notes the position and time of each
 * append (`appended`) and learns the projector's applied position from its reports (`applied`),
 * on the same thread or posted from the worker that projects. A record counts from when its
 * append was acknowledged, as an operator sampling the log head would count it.
 */

export interface BackpressureOptions {
  /** Largest projection lag, in ms, at which turns are appended without waiting. */
  maxLagMs: number;
  /** Longest one append waits for the lag to come down, in ms. */
  maxWaitMs: number;
  /** Clock in ms (performance.now by default). */
  now?: () => number;
}

/** What one `admit` did: how long it waited, and whether it gave up waiting (maxWaitMs). */
export interface Admission {
  waitedMs: number;
  timedOut: boolean;
}

export class ProjectionBackpressure {
  readonly maxLagMs: number;
  readonly maxWaitMs: number;
  private readonly now: () => number;
  /**
   * When each position was first known to be in the log: (position, ms), positions increasing.
   * Entries the projector has applied are dropped.
   */
  private positions: number[] = [];
  private times: number[] = [];
  private head = 0;
  private appliedThrough = 0;
  private waiters = new Set<() => void>();

  constructor(options: BackpressureOptions) {
    if (!(options.maxLagMs > 0))
      throw new RangeError(`maxLagMs must be > 0 (got ${options.maxLagMs})`);
    if (!(options.maxWaitMs >= 0)) {
      throw new RangeError(`maxWaitMs must be ≥ 0 (got ${options.maxWaitMs})`);
    }
    this.maxLagMs = options.maxLagMs;
    this.maxWaitMs = options.maxWaitMs;
    this.now = options.now ?? (() => performance.now());
  }

  /** An append was acknowledged at `position` (the last position it wrote). */
  appended(position: number): void {
    // Appends finish out of order under concurrency; a position at or below the head is already
    // covered by an earlier (or equal) time, which only makes the lag seen a little larger.
    if (position <= this.head) return;
    this.head = position;
    if (position <= this.appliedThrough) return;
    this.positions.push(position);
    this.times.push(this.now());
  }

  /** The projector has applied everything through `position`. */
  applied(position: number): void {
    if (position <= this.appliedThrough) return;
    this.appliedThrough = position;
    let drop = 0;
    while (drop < this.positions.length && this.positions[drop]! <= position) drop++;
    if (drop > 0) {
      this.positions = this.positions.slice(drop);
      this.times = this.times.slice(drop);
    }
    for (const wake of [...this.waiters]) wake();
  }

  /** The age in ms of the oldest appended record not yet applied (0 when none is). */
  lagMs(): number {
    // positions[0] is the first sample past the applied position: the oldest record not applied
    // was appended no later than then.
    const since = this.times[0];
    return since === undefined ? 0 : Math.max(0, this.now() - since);
  }

  /** Positions appended and not yet applied, as far as this gate knows. */
  backlog(): number {
    return Math.max(0, this.head - this.appliedThrough);
  }

  /**
   * Resolves once a turn may be appended: at once while the lag is within the bound; otherwise
   * when a report brings it back within the bound, or after `maxWaitMs`.
   */
  async admit(): Promise<Admission> {
    if (this.lagMs() <= this.maxLagMs) return { waitedMs: 0, timedOut: false };
    const started = this.now();
    return new Promise<Admission>((resolve) => {
      const finish = (timedOut: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve({ waitedMs: this.now() - started, timedOut });
      };
      const check = () => {
        if (this.lagMs() <= this.maxLagMs) finish(false);
      };
      const timer = setTimeout(() => finish(true), this.maxWaitMs);
      this.waiters.add(check);
    });
  }
}
