import type { AnyDb } from '@stratagate/store';
import { BatchSizer, type BatchBudget } from './batch-budget.ts';
import type { DeferredWork, DrainSlice } from './projection.ts';

/**
 * Items queued up to which a slice gives way to a waiting caller (ADR 0023): the knee of the
 * lane's budget (ADR 0019).
 */
export const YIELD_QUEUED = 8;

/**
 * A kicked lane opens its next slice no sooner than this after the previous one began, unless a
 * whole slice is queued (ADR 0028). Seals then gather while the projector applies its batches, and
 * a slice indexes more blocks of each space in one call: one rewrite of each term's chunk for
 * all of them. It adds at most this much to the projected position of raw search.
 */
export const LANE_PACE_MS = 150;

export interface DeferredLane {
  /** Drains `schema` in the background unless a drain is running (which then goes on with it). */
  kick(schema: string): void;
  /** Returns once nothing is queued in `schema`; a failed slice throws. */
  settle(schema: string): Promise<void>;
  /** Lets the running slice finish; no other starts until the next kick or settle. */
  stop(): Promise<void>;
}

/**
 * Runs a projection's deferred work (ADR 0014) beside the projector's batches: on a server, the
 * slices run on a connection of their own, so indexing and projection overlap. A failed slice is
 * reported and retried after `retryMs` (its transaction rolled back; the queue still holds it).
 */
export function deferredLane(options: {
  db: AnyDb;
  /** The deferred work of the projection being run (it follows the runner's target). */
  work: () => DeferredWork | undefined;
  onError?: ((error: unknown) => void) | undefined;
  retryMs?: number;
  /**
   * Sizes each slice to about this long a transaction, up to the work's `maxSlice` (ADR 0019);
   * without it every slice takes `maxSlice`.
   */
  budget?: BatchBudget;
  /**
   * Upkeep after the lane emptied the queue, as after a committed batch (the projection's
   * `afterCommit`: the lane's writes need their visibility maps set like the batches' do).
   */
  afterDrain?: (schema: string) => Promise<void>;
  /**
   * True while a caller waits for the session: a slice then stops between items, as long as no
   * more than YIELD_QUEUED items are queued; behind that it holds on (ADR 0023).
   */
  yieldWhen?: () => boolean;
  /** Least time between the starts of two kicked slices (default LANE_PACE_MS; 0: none). */
  paceMs?: number;
  /** After each slice that took items off the queue (committed). */
  onSlice?: (schema: string) => void;
}): DeferredLane {
  const { db, yieldWhen } = options;
  const paceMs = options.paceMs ?? LANE_PACE_MS;
  // Made at the first slice, when the work (and its maxSlice) is known.
  let sizer: BatchSizer | null = null;
  let running: Promise<void> | null = null;
  let next: string | null = null;
  let stopped = false;
  let retry: ReturnType<typeof setTimeout> | null = null;
  // When the last kicked drain opened its first slice, and the timer of a drain held back.
  let lastStart = -Infinity;
  let paced: ReturnType<typeof setTimeout> | null = null;
  let pacedSchema = '';

  /** `pace`: a kicked drain, which waits out the pace; `settle` does not. */
  async function drainAll(schema: string, pace: boolean) {
    const work = options.work();
    let drained = 0;
    let first = true;
    for (;;) {
      if (!work || stopped) return;
      // Items queued count as the backlog: 8 of them double the budget (a sealed block, the
      // message index's item, is ~24 messages).
      if (options.budget) {
        sizer ??= new BatchSizer({
          budget: options.budget,
          max: work.maxSlice,
          initial: 4,
          knee: YIELD_QUEUED,
        });
      }
      // Nothing queued: no slice. A slice is a transaction with the lane's advisory lock, and the
      // lane is kicked after every batch, most of which seal nothing (an evidence batch, a
      // summary). A seal committed after this count kicks the lane again.
      const queued = (await work.queued(db, schema)).items;
      if (queued === 0) break;
      if (first && pace) {
        const wait = lastStart + paceMs - performance.now();
        if (wait > 0 && queued < work.maxSlice) {
          // Held back: a later kick, or the timer, opens the slice with what gathered meanwhile.
          pacedSchema = schema;
          paced ??= setTimeout(() => {
            paced = null;
            kick(pacedSchema);
          }, Math.ceil(wait));
          return;
        }
        lastStart = performance.now();
      }
      first = false;
      const limit = sizer?.next(queued);
      let heldMs = NaN;
      const slice: DrainSlice = {
        ...(sizer ? { limit, held: (ms: number) => (heldMs = ms) } : {}),
        ...(yieldWhen && queued <= YIELD_QUEUED ? { control: { shouldYield: yieldWhen } } : {}),
      };
      const n = await work.drain(db, schema, slice);
      sizer?.observe(n, heldMs);
      if (n === 0) break;
      drained += n;
      options.onSlice?.(schema);
    }
    if (drained > 0) await options.afterDrain?.(schema);
  }

  async function run(first: string) {
    let schema: string | null = first;
    while (schema && !stopped) {
      next = null;
      try {
        await drainAll(schema, true);
      } catch (error) {
        options.onError?.(error);
        const failed = schema;
        retry ??= setTimeout(() => {
          retry = null;
          kick(failed);
        }, options.retryMs ?? 1_000);
        return;
      }
      schema = next;
    }
  }

  function kick(schema: string) {
    if (!options.work() || stopped) return;
    if (running) {
      next = schema;
      return;
    }
    running = run(schema).finally(() => {
      running = null;
    });
  }

  return {
    kick,
    async settle(schema) {
      while (running) await running;
      await drainAll(schema, false);
    },
    async stop() {
      stopped = true;
      if (retry) clearTimeout(retry);
      if (paced) clearTimeout(paced);
      paced = null;
      while (running) await running;
      stopped = false;
    },
  };
}
