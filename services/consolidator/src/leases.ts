import {
  claimJobLease,
  releaseJobLease,
  renewJobLease,
  type AnyDb,
  type JobLease,
} from '@stratagate/store';

/** A claimed unit while its jobs run (ADR 0042). */
export interface HeldLease {
  /** Aborted when the consolidator stops or the lease is lost: model calls in flight end. */
  readonly signal: AbortSignal;
  /** Renews the lease now; false once another consolidator holds the unit (the fence). */
  stillHeld(): Promise<boolean>;
}

export interface LeaseOptions {
  db: AnyDb;
  holder: string;
  ttlMs: number;
  /** The consolidator's own stop. */
  stop: AbortSignal;
  onError?: (error: unknown) => void;
}

/**
 * Runs `work` under a lease on `unit`, or not at all (null) when another consolidator holds it.
 * The lease is renewed every third of its time while the work runs, so only a process that stops
 * renewing (killed, or stalled longer than the lease) loses it; then the work is aborted, and its
 * appends are dropped by `stillHeld`. Released at the end, so the next pass of any consolidator
 * can claim the unit at once.
 */
export async function underLease<T>(
  options: LeaseOptions,
  unit: string,
  work: (lease: HeldLease) => Promise<T>,
): Promise<T | null> {
  const { db, ttlMs } = options;
  const claimed = await claimJobLease(db, unit, options.holder, ttlMs);
  if (!claimed) return null;
  const lost = new AbortController();
  const signal = AbortSignal.any([options.stop, lost.signal]);
  const renew = async (lease: JobLease) => {
    if (lost.signal.aborted) return false;
    const held = await renewJobLease(db, lease, ttlMs);
    if (!held) lost.abort();
    return held;
  };
  const timer = setInterval(
    () => {
      // A failed renewal is tried again at the next tick; the fence at append is what decides.
      renew(claimed).catch((error: unknown) => options.onError?.(error));
    },
    Math.max(1, Math.floor(ttlMs / 3)),
  );
  timer.unref?.();
  try {
    return await work({ signal, stillHeld: () => renew(claimed) });
  } finally {
    clearInterval(timer);
    if (!lost.signal.aborted) {
      await releaseJobLease(db, claimed).catch((error: unknown) => options.onError?.(error));
    }
  }
}
