// Entry of the offline model's worker thread (offline-thread.ts): loads the TypeScript sources
// through tsx, as bin/stratagate.mjs does for the main thread.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { serveOfflineCalls } = await import('./offline-thread.serve.ts');
const { createOfflineProvider } = await import('./offline-provider.ts');
const { lowerOwnThreadPriority } = await import('./thread-priority.ts');
// Before any call: the thread's work runs at its nice value from the first block on (ADR 0032).
const priority = lowerOwnThreadPriority(workerData?.nice ?? 0);
serveOfflineCalls(parentPort, createOfflineProvider(), priority);
