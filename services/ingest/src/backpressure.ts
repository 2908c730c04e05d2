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

/**
 * Where the projector is: everything through `checkpoint` is applied, except that a space listed
 * in `held` is complete only up to the position before its oldest seal still queued for raw
 * search (ADR 0014). Plain data: it is posted between threads.
 */
export interface ProjectionProgress {
  checkpoint: number;
  held: readonly { tenantId: string; spaceId: string; oldestPosition: number }[];
}

/** A space as the gate keys it. */
export interface SpaceKey {
  tenantId: string;
  spaceId: string;
}

const keyOf = (space: SpaceKey) => `${space.tenantId}\u0000${space.spaceId}`;

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
   * Per space with records not yet applied: when each of its positions was first known to be in
   * the log, positions increasing. A space leaves the map once the projector has applied them.
   */
  private pending = new Map<string, { positions: number[]; times: number[] }>();
  private head = 0;
  private checkpoint = 0;
  /** Oldest seal position still queued for raw search, per space (the last report's). */
  private held = new Map<string, number>();
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

  /** The position through which the space's records are applied. */
  private appliedFor(key: string): number {
    const held = this.held.get(key);
    return held === undefined ? this.checkpoint : Math.min(this.checkpoint, held - 1);
  }

  /** An append to `space` was acknowledged at `position` (the last position it wrote). */
  appended(position: number, space: SpaceKey): void {
    this.head = Math.max(this.head, position);
    const key = keyOf(space);
    if (position <= this.appliedFor(key)) return;
    let entry = this.pending.get(key);
    if (!entry) this.pending.set(key, (entry = { positions: [], times: [] }));
    // Appends finish out of order under concurrency; a position at or below the space's last
    // one is already covered by an earlier (or equal) time, which only makes the lag seen a
    // little larger.
    if (position <= (entry.positions.at(-1) ?? 0)) return;
    entry.positions.push(position);
    entry.times.push(this.now());
  }

  /**
   * The projector's progress: a position (everything through it, in every space) or the
   * checkpoint with the spaces that seals queued for raw search hold back.
   */
  applied(progress: number | ProjectionProgress): void {
    const { checkpoint, held } =
      typeof progress === 'number' ? { checkpoint: progress, held: [] } : progress;
    // Reports come one at a time, in order; a checkpoint never goes back.
    this.checkpoint = Math.max(this.checkpoint, checkpoint);
    this.held = new Map(held.map((h) => [keyOf(h), h.oldestPosition]));
    for (const [key, entry] of this.pending) {
      const through = this.appliedFor(key);
      let drop = 0;
      while (drop < entry.positions.length && entry.positions[drop]! <= through) drop++;
      if (drop === entry.positions.length) this.pending.delete(key);
      else if (drop > 0) {
        entry.positions = entry.positions.slice(drop);
        entry.times = entry.times.slice(drop);
      }
    }
    for (const wake of [...this.waiters]) wake();
  }

  /**
   * The age in ms of the space's oldest appended record not yet applied (0 when none is);
   * without a space, of the oldest in any space.
   */
  lagMs(space?: SpaceKey): number {
    // times[0] is the first sample past the applied position: the oldest record not applied
    // was appended no later than then.
    let since: number | undefined;
    if (space) since = this.pending.get(keyOf(space))?.times[0];
    else for (const e of this.pending.values()) since = Math.min(since ?? Infinity, e.times[0]!);
    return since === undefined ? 0 : Math.max(0, this.now() - since);
  }

  /** Positions appended past the checkpoint, as far as this gate knows. */
  backlog(): number {
    let oldest = this.checkpoint;
    for (const held of this.held.values()) oldest = Math.min(oldest, held - 1);
    return Math.max(0, this.head - oldest);
  }

  /**
   * Resolves once a turn to `space` may be appended: at once while the space's lag is within the
   * bound; otherwise when a report brings it back within the bound, or after `maxWaitMs`.
   */
  async admit(space: SpaceKey): Promise<Admission> {
    if (this.lagMs(space) <= this.maxLagMs) return { waitedMs: 0, timedOut: false };
    const started = this.now();
    return new Promise<Admission>((resolve) => {
      const finish = (timedOut: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve({ waitedMs: this.now() - started, timedOut });
      };
      const check = () => {
        if (this.lagMs(space) <= this.maxLagMs) finish(false);
      };
      const timer = setTimeout(() => finish(true), this.maxWaitMs);
      this.waiters.add(check);
    });
  }
}
