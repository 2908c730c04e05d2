/**
 * The per-search score arrays of a top-k search, indexed by document number (ADR 0017), taken
 * from a small pool and given back cleared: a search over a space of 250k documents would
 * otherwise allocate and zero megabytes per call, and the collector's work showed up as a tenth
 * of a search's time (ADR 0018).
 */
export class ScoreBoard {
  /** Partial (or final) score per document number. */
  scores: Float64Array;
  /** 1 for numbers in `seen`. */
  isSeen: Uint8Array;
  /** The numbers with a score, in the order first seen: `seen[0 … count)`. */
  seen: Int32Array;
  count = 0;
  /** Numbers at or above it are skipped (documents numbered after the search's statistics). */
  limit = 0;
  /** Room for selecting the k-th largest score without allocating. */
  private select: Float64Array;

  private constructor(capacity: number) {
    this.scores = new Float64Array(capacity);
    this.isSeen = new Uint8Array(capacity);
    this.seen = new Int32Array(capacity);
    this.select = new Float64Array(capacity);
  }

  get capacity(): number {
    return this.scores.length;
  }

  /** A cleared board for numbers below `limit`. Give it back with `release`. */
  static take(limit: number): ScoreBoard {
    let board: ScoreBoard | undefined;
    for (let i = POOL.length - 1; i >= 0; i--) {
      if (POOL[i]!.capacity >= limit) {
        board = POOL.splice(i, 1)[0];
        break;
      }
    }
    board ??= new ScoreBoard(Math.max(1024, Math.ceil(limit * 1.25)));
    board.limit = limit;
    return board;
  }

  /** Clears what the search wrote and returns the board to the pool. */
  release(): void {
    for (let i = 0; i < this.count; i++) {
      const no = this.seen[i]!;
      this.scores[no] = 0;
      this.isSeen[no] = 0;
    }
    this.count = 0;
    if (POOL.length < POOL_SIZE) POOL.push(this);
  }

  /** Adds `gain` to `no`'s score, noting it as seen. */
  add(no: number, gain: number): void {
    if (this.isSeen[no] === 0) {
      this.isSeen[no] = 1;
      this.seen[this.count++] = no;
    }
    this.scores[no] = this.scores[no]! + gain;
  }

  /**
   * The k-th largest score among `nos` (default: the seen numbers), known to be at least `floor`
   * (returned when fewer than k scores reach it). Copies only the scores ≥ floor, then
   * quickselect.
   */
  kthLargest(k: number, floor: number, nos?: readonly number[]): number {
    if (k <= 0) return floor;
    const a = this.select;
    const scores = this.scores;
    let n = 0;
    if (nos) {
      for (const no of nos) {
        const v = scores[no]!;
        if (v >= floor) a[n++] = v;
      }
    } else {
      for (let i = 0; i < this.count; i++) {
        const v = scores[this.seen[i]!]!;
        if (v >= floor) a[n++] = v;
      }
    }
    if (n < k) return floor;
    let lo = 0;
    let hi = n - 1;
    const target = k - 1; // index in descending order
    while (lo < hi) {
      const pivot = a[(lo + hi) >>> 1]!;
      let i = lo;
      let j = hi;
      while (i <= j) {
        while (a[i]! > pivot) i++;
        while (a[j]! < pivot) j--;
        if (i <= j) {
          const x = a[i]!;
          a[i] = a[j]!;
          a[j] = x;
          i++;
          j--;
        }
      }
      if (target <= j) hi = j;
      else if (target >= i) lo = i;
      else break;
    }
    return a[target]!;
  }
}

/** Boards kept for reuse: about the searches that run at once in one process. */
const POOL_SIZE = 4;
const POOL: ScoreBoard[] = [];
