// Test entry for offline-thread.int.spec.ts: the real thread, except that a block named
// "blk_crash" ends the thread at once, as a crash would.
import { parentPort } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { serveOfflineCalls } = await import('./offline-thread.serve.ts');
const { createOfflineProvider } = await import('./offline-provider.ts');
const provider = createOfflineProvider();
serveOfflineCalls(parentPort, {
  ...provider,
  summarizeBlock(input, options) {
    if (input.blockId === 'blk_crash') process.exit(3);
    return provider.summarizeBlock(input, options);
  },
});
