/**
 * Batch sizes held to a time budget (ADR 0019).
 *
 * On the embedded store every role shares one database session, and a transaction holds it from
 * BEGIN to COMMIT: an acknowledgement waits for the background transaction in progress. PGlite
 * also runs each statement synchronously, so a transaction's statements follow each other without
 * the event loop reading a request in between. A projector batch of 500 records took 100–470 ms
 * there; every acknowledgement that arrived meanwhile waited as long.
 *
 * A `BatchSizer` keeps an estimate of the time one item takes (moving average over recent
 * batches, fixed costs included) and hands out the size that fits the budget, between `min` and
 * `max`. The budget grows with the backlog, so that a projector behind a burst of appends catches
 * up (backpressure on ingest) instead of falling further behind. Without a budget (a Postgres
 * server, where sessions run side by side) it always hands out `max`.
 */
export interface BatchBudget {
  /** Target duration of one batch's transaction, in milliseconds, when nothing is behind. */
  budgetMs: number;
}

export interface BatchSizerOptions {
  /** No budget: every batch takes `max`. */
  budget: BatchBudget | undefined;
  max: number;
  min?: number;
  /** The first size, before anything was measured (default 16, within min..max). */
  initial?: number;
  /**
   * Items behind at which the budget has doubled: the budget grows in proportion to the backlog
   * (`budgetMs × (1 + backlog / knee)`), so work that falls behind takes a larger share of the
   * session and catches up, at the cost of acknowledgements waiting longer. Default 100.
   */
  knee?: number;
}

export class BatchSizer {
  /** Estimated milliseconds per item; null until a batch has been measured. */
  private perItemMs: number | null = null;
  private current: number;
  private readonly budget: BatchBudget | undefined;
  private readonly max: number;
  private readonly min: number;
  private readonly knee: number;

  constructor(options: BatchSizerOptions) {
    const { budget, max, min = 1, knee = 100 } = options;
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`max must be ≥ 1 (got ${max})`);
    if (!Number.isInteger(min) || min < 1 || min > max) {
      throw new RangeError(`min must be in 1..${max} (got ${min})`);
    }
    if (budget && !(budget.budgetMs > 0)) {
      throw new RangeError(`budgetMs must be > 0 (got ${budget.budgetMs})`);
    }
    if (!(knee > 0)) throw new RangeError(`knee must be > 0 (got ${knee})`);
    this.budget = budget;
    this.max = max;
    this.min = min;
    this.knee = knee;
    this.current = budget ? clamp(options.initial ?? 16, min, max) : max;
  }

  /**
   * The number of items the next batch may take, given how many are waiting beyond it (0 when
   * unknown). Call it once per batch: a size grows by at most half from one batch to the next,
   * since a short batch (the end of the log) says little about larger ones.
   */
  next(backlog = 0): number {
    if (!this.budget || this.perItemMs === null) return this.current;
    const budgetMs = this.budget.budgetMs * (1 + Math.max(0, backlog) / this.knee);
    const fits = this.perItemMs > 0 ? Math.floor(budgetMs / this.perItemMs) : this.max;
    const grown = Math.max(this.current + 1, Math.ceil(this.current * 1.5));
    this.current = clamp(Math.min(fits, grown), this.min, this.max);
    return this.current;
  }

  /** Records that a batch of `items` held the session for `ms`. */
  observe(items: number, ms: number): void {
    if (!this.budget || items <= 0 || !Number.isFinite(ms) || ms < 0) return;
    const sample = ms / items;
    // A new sample weighs 30 %: one slow batch (a checkpoint, a cold cache) does not halve the
    // next one, a lasting change is followed within a few batches.
    this.perItemMs = this.perItemMs === null ? sample : 0.7 * this.perItemMs + 0.3 * sample;
  }
}

const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, n));
