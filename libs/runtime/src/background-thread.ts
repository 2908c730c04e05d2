import { Worker, type MessagePort } from 'node:worker_threads';
import type { ProjectionProgress } from '@stratagate/ingest';
import type { Config, Role } from './config.ts';
import type { ProjectorClock } from './node.ts';
import { splitEmbeddedDir } from './stores.ts';

/** Roles that answer requests, and roles that work through the log behind them. */
const FOREGROUND: readonly Role[] = ['ingest', 'query'];
const BACKGROUND: readonly Role[] = ['projector', 'consolidator'];

/**
 * How `serve` places the configured roles (ADR 0016). With STRATAGATE_BACKGROUND_THREAD on and
 * roles of both kinds configured, the projector and the consolidator run in a worker thread:
 * their JavaScript (tokenising, block views, the offline model) no longer holds up the event loop
 * that acknowledges turns and answers queries. On a Postgres server; and on an embedded data
 * directory with the split layout (ADR 0030), where each thread owns one of the two PGlite stores
 * (the log on the main thread, the read models in the worker) and reaches the other through a
 * port. An embedded directory from before it is one PGlite session: everything stays on one
 * thread there. `null`: all roles on the main thread.
 */
export function placeRoles(config: Config): { main: Role[]; background: Role[] } | null {
  if (!config.STRATAGATE_BACKGROUND_THREAD) return null;
  if (!config.DATABASE_URL && !splitEmbeddedDir(config)) return null;
  const roles = config.STRATAGATE_ROLES;
  const main = roles.filter((r) => FOREGROUND.includes(r));
  const background = roles.filter((r) => BACKGROUND.includes(r));
  return main.length > 0 && background.length > 0 ? { main, background } : null;
}

/**
 * Whether a node with `config`'s roles runs the offline provider on a thread of its own (ADR
 * 0022): when the consolidator shares the node's event loop with another role (ingest and query
 * on the embedded store, the projector in the background thread on a server), and the setting
 * allows it. A configured OpenAI-compatible model is not affected: it waits on the network.
 */
export function offlineModelThread(config: Config): boolean {
  const roles = new Set(config.STRATAGATE_ROLES);
  return config.STRATAGATE_OFFLINE_MODEL_THREAD && roles.has('consolidator') && roles.size > 1;
}

export interface BackgroundThread {
  /** Stops the roles gracefully (the current batch finishes), then ends the thread. */
  stop(): Promise<void>;
}

/**
 * What the worker posts to the main thread. `projected`: where the read model is complete (the
 * checkpoint, and the spaces that queued seals hold back), after each projector batch and
 * indexing slice, when asked for (ADR 0031, ADR 0043).
 */
export type BackgroundMessage =
  | { type: 'started' }
  | { type: 'failed'; message: string }
  | { type: 'stopped' }
  | { type: 'projected'; progress: ProjectionProgress }
  | { type: 'moved'; what: keyof ProjectorClock };

/**
 * The ports of the embedded split layout (ADR 0030), both transferred to the worker: `log` is
 * served by the main thread (it owns the log's store); the worker serves its read-model store on
 * `readModel`.
 */
export interface EmbeddedPorts {
  log: MessagePort;
  readModel: MessagePort;
}

/** What the worker is started with. */
export interface BackgroundData {
  config: Config;
  embedded?: EmbeddedPorts;
  /** Post `projected` messages: the main thread's ingest holds turns back on them (ADR 0031). */
  reportProjected?: boolean;
  /** Post `moved` messages: the main thread's readiness watches the projector (ADR 0043). */
  reportMoved?: boolean;
}

/**
 * Starts `roles` in a worker thread with the same configuration (and no API key of its own: the
 * main thread registers keys). Resolves once they run; rejects when they fail to start.
 * `onExit` is called if the thread ends without being asked to: the process should not carry on
 * acknowledging turns that nothing projects.
 */
export async function startBackgroundThread(
  config: Config,
  roles: Role[],
  onExit: (reason: string) => void,
  embedded?: EmbeddedPorts,
  onProjected?: (progress: ProjectionProgress) => void,
  onMoved?: (what: keyof ProjectorClock) => void,
): Promise<BackgroundThread> {
  const workerConfig: Config = {
    ...config,
    STRATAGATE_ROLES: roles,
    STRATAGATE_API_KEY: undefined,
  };
  const data: BackgroundData = {
    config: workerConfig,
    ...(embedded ? { embedded } : {}),
    ...(onProjected ? { reportProjected: true } : {}),
    ...(onMoved ? { reportMoved: true } : {}),
  };
  const worker = new Worker(new URL('./background-thread.worker.mjs', import.meta.url), {
    workerData: data,
    transferList: embedded ? [embedded.log, embedded.readModel] : [],
  });
  let stopping = false;
  if (onProjected || onMoved) {
    worker.on('message', (m: BackgroundMessage) => {
      if (m.type === 'projected') onProjected?.(m.progress);
      if (m.type === 'moved') onMoved?.(m.what);
    });
  }
  await new Promise<void>((resolve, reject) => {
    const onMessage = (m: BackgroundMessage) => {
      if (m.type === 'started') {
        cleanup();
        resolve();
      } else if (m.type === 'failed') {
        cleanup();
        reject(new Error(`background roles [${roles.join(', ')}] failed to start: ${m.message}`));
      }
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const onEarlyExit = (code: number) => {
      cleanup();
      reject(new Error(`background thread exited with code ${code} while starting`));
    };
    const cleanup = () => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onEarlyExit);
    };
    worker.on('message', onMessage);
    worker.once('error', onError);
    worker.once('exit', onEarlyExit);
  });
  worker.once('error', (error) => {
    if (!stopping) onExit(`background thread failed: ${error.message}`);
  });
  worker.once('exit', (code) => {
    if (!stopping) onExit(`background thread exited with code ${code}`);
  });
  return {
    async stop() {
      if (stopping) return;
      stopping = true;
      // The roles have stopped once the worker says so (or the thread has ended); whatever handle
      // might still keep the thread alive after that is cut by terminate().
      await new Promise<void>((resolve) => {
        worker.on('message', (m: BackgroundMessage) => {
          if (m.type === 'stopped') resolve();
        });
        worker.once('exit', () => resolve());
        worker.postMessage({ type: 'stop' });
      });
      await worker.terminate();
    },
  };
}
