/**
 * Delays between attempts of one HTTP call. Exponential so a struggling server gets room;
 * jittered so workers that failed together do not retry in lock-step; capped so one task
 * stays well inside the job's own timeout (MM-JOB-5).
 */
export const BACKOFF_BASE_MS = 1_000;
export const BACKOFF_MAX_MS = 30_000;
/** A server may ask for a long pause; more than this is better spent as a failed job attempt. */
export const RETRY_AFTER_MAX_MS = 60_000;

/**
 * Delay before retry number `retry` (1-based): base·2^(retry−1), capped, then reduced by up to
 * 25 % by `random()` ∈ [0, 1). With `random = () => 0` the delays are exactly 1 s, 2 s, 4 s, ….
 */
export function backoffDelayMs(retry: number, random: () => number): number {
  const step = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, retry - 1));
  return Math.round(step * (1 - 0.25 * random()));
}

/**
 * `Retry-After` in seconds (fractions allowed), bounded; null when absent or not a number of
 * seconds (the HTTP-date form is rare on these APIs and would need the clock).
 */
export function retryAfterMs(header: string | null): number | null {
  if (header === null || !/^\s*\d+(\.\d+)?\s*$/u.test(header)) return null;
  return Math.min(RETRY_AFTER_MAX_MS, Math.round(Number(header) * 1000));
}
