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
  onError?: ((error: unknown) => void) | undefined;
  onStop?: () => void;
}): TailLoop {
  let running = false;
  let loop: Promise<void> | null = null;
  let wake: (() => void) | null = null;

  async function run() {
    const unsubscribe = options.log.onAppended(() => wake?.());
    try {
      while (running) {
        try {
          await options.work();
        } catch (error) {
          options.onError?.(error);
        }
        if (!running) break;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, options.idleMs);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = null;
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
