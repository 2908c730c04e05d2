import type { MessageLog } from './message-log.ts';

export interface TailLoop {
  start(): void;
  stop(): Promise<void>;
}

/**
 * Runs `work` again and again: at once when this process appended to the log, otherwise every
 * `idleMs` (other processes append too). Errors go to `onError` and the loop carries on.
 */
export function tailLoop(options: {
  log: MessageLog;
  work: () => Promise<unknown>;
  idleMs: number;
  /**
   * After a wake-up, wait this long before working, so that a stream of appends is handled in a
   * few larger batches rather than one tiny batch per append. 0 = at once.
   */
  coalesceMs?: number;
  /** Wake on this process's appends (default true); false = poll only. */
  wakeOnAppend?: boolean;
  onError?: ((error: unknown) => void) | undefined;
  onStop?: () => void;
}): TailLoop {
  let running = false;
  let loop: Promise<void> | null = null;
  let wake: (() => void) | null = null;

  async function run() {
    const unsubscribe =
      options.wakeOnAppend === false ? () => {} : options.log.onAppended(() => wake?.());
    try {
      while (running) {
        try {
          await options.work();
        } catch (error) {
          options.onError?.(error);
        }
        if (!running) break;
        const woken = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), options.idleMs);
          wake = () => {
            clearTimeout(timer);
            resolve(true);
          };
        });
        wake = null;
        if (woken && running && options.coalesceMs) {
          await new Promise((resolve) => setTimeout(resolve, options.coalesceMs));
        }
      }
    } finally {
      unsubscribe();
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      loop = run();
    },
    async stop() {
      running = false;
      options.onStop?.();
      wake?.();
      await loop;
      loop = null;
    },
  };
}
