import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/** What `lowerOwnThreadPriority` did: the thread's id and nice value, or why nothing was done. */
export type ThreadPriority = { tid: number; nice: number } | { unchanged: string };

/** Throws a RangeError unless `nice` is a nice value a thread may be given (an integer, 0..19). */
export function assertThreadNice(nice: number): void {
  if (!Number.isInteger(nice) || nice < 0 || nice > 19) {
    throw new RangeError(`thread nice value must be an integer in 0..19 (got ${nice})`);
  }
}

/**
 * Gives the calling thread, and only it, the nice value `nice` (ADR 0032): background work then
 * takes the CPU that requests leave. Linux only: `/proc/thread-self` names the thread's id, and
 * `setpriority` on a thread id changes that thread alone. Raising a nice value needs no
 * privilege. Elsewhere, or with `nice` 0, the thread keeps its priority and the reason is
 * returned.
 */
export function lowerOwnThreadPriority(nice: number): ThreadPriority {
  assertThreadNice(nice);
  if (nice === 0) return { unchanged: 'nice 0 asked' };
  if (process.platform !== 'linux') return { unchanged: `not on Linux (${process.platform})` };
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0) return { unchanged: 'no thread id in /proc' };
    setPriority(tid, nice);
    return { tid, nice };
  } catch (error) {
    return { unchanged: `setpriority failed: ${(error as Error).message}` };
  }
}
