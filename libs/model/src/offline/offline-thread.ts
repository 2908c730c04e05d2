import { Worker } from 'node:worker_threads';
import {
  ModelError,
  type BlockSummaryInput,
  type BlockSummaryResult,
  type ExtractionInput,
  type ExtractionResult,
  type GraphProposalResult,
  type ModelPort,
} from '../model-port.ts';
import type { GraphProposalInput } from '../graph.schema.ts';
import { OFFLINE_PROVIDER_NAME } from './offline-provider.ts';
import { compressProfileOffline, OFFLINE_PROFILE_PROMPT_VERSION } from './profile-compression.ts';
import { buildTopicsOffline, OFFLINE_TOPICS_PROMPT_VERSION } from './topics/build-topics.ts';
import { assertThreadNice, type ThreadPriority } from './thread-priority.ts';

/** The offline provider's methods, by name, with their inputs and results. */
export interface OfflineCalls {
  summarizeBlock: [BlockSummaryInput, BlockSummaryResult];
  extractMemoryEvents: [ExtractionInput, ExtractionResult];
  proposeGraph: [GraphProposalInput, GraphProposalResult];
}
export type OfflineMethod = keyof OfflineCalls;

/** What the thread answers to a call. */
export type OfflineReply =
  | { id: number; result: unknown }
  | {
      id: number;
      error: { name: string; message: string; code?: string; transient?: boolean };
    };

/** What the thread posts once its code is loaded, before any call. */
export interface OfflineReady {
  ready: true;
  /** What the thread did with the nice value it was given (ADR 0032). */
  priority: ThreadPriority;
}

/** What the thread is started with. */
export interface OfflineThreadData {
  /** The thread's nice value, 0..19 (ADR 0032); 0 leaves it at the process's. */
  nice: number;
}

/** A model port whose work runs on another thread; `close` ends that thread. */
export interface ThreadedModelPort extends ModelPort {
  /**
   * Starts the thread now if none is running, and resolves once it has loaded its code. Without
   * it the first call starts the thread, and loading its modules (through tsx, a second or more of
   * CPU) then falls on the first blocks to consolidate. Rejects, as a transient `ModelError`, if
   * the thread fails before it is ready; the next call starts another.
   */
  warm(): Promise<void>;
  /** The running thread's id, or null when none is running (for operators and tests). */
  readonly threadId: number | null;
  /**
   * What the running thread reported of its priority once ready (ADR 0032): its operating-system
   * thread id and nice value, or why it kept the process's. Null until a thread is ready.
   */
  readonly priority: ThreadPriority | null;
  close(): Promise<void>;
}

/**
 * The offline provider on a worker thread of its own (ADR 0022).
 *
 * The offline provider is synchronous JavaScript: summarising a block, extracting its events
 * (chrono-node's date parsing included) and proposing its graph take milliseconds each, and a
 * single call was seen to take 180 ms. On the embedded store the consolidator shares the process's
 * one event loop with ingest and query, so every such call was a pause in which no request was
 * read or answered. Here the calls run on another thread, which the operating system schedules on
 * the other core; the caller's event loop only sends the input and receives the result.
 *
 * The results are the same as the in-thread provider's: the thread runs that provider's own
 * functions on a structured copy of the input. Errors come back with their name, message and
 * code, as `ModelError` when they were one. If the thread dies, the calls it had are rejected as
 * a transient `ModelError` (the consolidator records a failure and retries the job) and the next
 * call starts a new thread. The thread never keeps the process alive.
 */
export function createOfflineProviderThread(
  options: {
    /** The thread's entry module (tests substitute one); the offline provider's by default. */
    entry?: URL;
    /**
     * The thread's nice value (0..19, default 0: the process's priority). Background work at a
     * higher nice value leaves the CPU to requests when both want it (ADR 0032).
     */
    nice?: number;
  } = {},
): ThreadedModelPort {
  const entry = options.entry ?? new URL('./offline-thread.worker.mjs', import.meta.url);
  const nice = options.nice ?? 0;
  // Checked here, so a bad value fails the caller, not the thread's start.
  assertThreadNice(nice);
  const data: OfflineThreadData = { nice };
  let priority: ThreadPriority | null = null;
  let worker: Worker | null = null;
  let nextId = 0;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let closed = false;
  // Whether the running thread has loaded its code, and who waits for it to (`warm`).
  let ready = false;
  let warming: { resolve: () => void; reject: (e: Error) => void }[] = [];

  const failAll = (error: Error) => {
    for (const call of pending.values()) call.reject(error);
    pending.clear();
    for (const w of warming) w.reject(error);
    warming = [];
  };

  const start = (): Worker => {
    const w = new Worker(entry, { workerData: data });
    ready = false;
    priority = null;
    w.unref();
    w.on('message', (reply: OfflineReply | OfflineReady) => {
      if ('ready' in reply) {
        if (worker !== w) return;
        ready = true;
        priority = reply.priority;
        for (const waiter of warming) waiter.resolve();
        warming = [];
        return;
      }
      const call = pending.get(reply.id);
      if (!call) return;
      pending.delete(reply.id);
      if ('result' in reply) call.resolve(reply.result);
      else call.reject(revive(reply.error));
      if (pending.size === 0) w.unref();
    });
    w.on('error', (error) => {
      if (worker === w) worker = null;
      failAll(
        new ModelError(`offline model thread failed: ${error.message}`, 'thread_failed', true),
      );
    });
    w.on('exit', (code) => {
      if (worker === w) worker = null;
      failAll(new ModelError(`offline model thread exited with code ${code}`, 'thread_exit', true));
    });
    return w;
  };

  function call<M extends OfflineMethod>(
    method: M,
    input: OfflineCalls[M][0],
    signal: AbortSignal | undefined,
  ): Promise<OfflineCalls[M][1]> {
    if (signal?.aborted) {
      return Promise.reject(new ModelError(`${method} aborted`, 'aborted', true));
    }
    if (closed) {
      return Promise.reject(new ModelError('offline model thread is closed', 'closed', false));
    }
    worker ??= start();
    const id = ++nextId;
    // Referenced while a call is out: a caller awaiting its answer keeps the process waiting.
    worker.ref();
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      worker!.postMessage({ id, method, input });
    });
  }

  return {
    name: OFFLINE_PROVIDER_NAME,
    deterministic: true,
    summarizeBlock: (input, options) => call('summarizeBlock', input, options?.signal),
    extractMemoryEvents: (input, options) => call('extractMemoryEvents', input, options?.signal),
    proposeGraph: (input, options) => call('proposeGraph', input, options?.signal),
    // A profile is at most 6,000 characters and the work a few string splits: it runs here, not
    // on the thread, whose queue may hold a long extraction.
    compressProfile: (input, options) =>
      options?.signal?.aborted
        ? Promise.reject(new ModelError('profile compression aborted', 'aborted', true))
        : Promise.resolve({
            output: compressProfileOffline(input),
            provider: OFFLINE_PROVIDER_NAME,
            promptVersion: OFFLINE_PROFILE_PROMPT_VERSION,
          }),
    // A batch is ≤ 12 compact events: a few set operations, cheaper than a message to the thread.
    buildTopics: (input, options) =>
      options?.signal?.aborted
        ? Promise.reject(new ModelError('topic building aborted', 'aborted', true))
        : Promise.resolve({
            output: buildTopicsOffline(input),
            provider: OFFLINE_PROVIDER_NAME,
            promptVersion: OFFLINE_TOPICS_PROMPT_VERSION,
          }),
    warm() {
      if (closed) {
        return Promise.reject(new ModelError('offline model thread is closed', 'closed', false));
      }
      worker ??= start();
      if (ready) return Promise.resolve();
      return new Promise<void>((resolve, reject) => warming.push({ resolve, reject }));
    },
    get threadId() {
      return worker?.threadId ?? null;
    },
    get priority() {
      return worker ? priority : null;
    },
    async close() {
      closed = true;
      const w = worker;
      worker = null;
      failAll(new ModelError('offline model thread is closed', 'closed', false));
      if (w) await w.terminate();
    },
  };
}

/** The error the thread reported, as an error of this thread. */
function revive(e: { name: string; message: string; code?: string; transient?: boolean }): Error {
  if (e.name === 'ModelError')
    return new ModelError(e.message, e.code ?? 'model_error', !!e.transient);
  const error = new Error(e.message) as Error & { code?: string };
  error.name = e.name;
  if (e.code !== undefined) error.code = e.code;
  return error;
}
