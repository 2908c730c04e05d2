import { parentPort, workerData } from 'node:worker_threads';
import type { BackgroundMessage } from './background-thread.ts';
import type { Config } from './config.ts';
import { startNode } from './node.ts';

/**
 * The worker thread's side of `startBackgroundThread`: starts the roles it was given, reports
 * that they run, and stops them gracefully when asked. Nothing listens for HTTP here.
 */
const port = parentPort!;
const post = (message: BackgroundMessage) => port.postMessage(message);
const { config } = workerData as { config: Config };

try {
  const node = await startNode(config, { listen: false, bootstrapKey: false });
  port.on('message', (message: { type: string }) => {
    if (message.type !== 'stop') return;
    void node.stop().finally(() => {
      post({ type: 'stopped' });
      port.close();
    });
  });
  post({ type: 'started' });
} catch (error) {
  post({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
  port.close();
}
