// Entry of the offline model's worker thread (offline-thread.ts): loads the TypeScript sources
// through tsx, as bin/stratagate.mjs does for the main thread.
import { parentPort } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { serveOfflineCalls } = await import('./offline-thread.serve.ts');
const { createOfflineProvider } = await import('./offline-provider.ts');
serveOfflineCalls(parentPort, createOfflineProvider());
