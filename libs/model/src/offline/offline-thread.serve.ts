import type { MessagePort } from 'node:worker_threads';
import type { ModelPort } from '../model-port.ts';
import type { OfflineCalls, OfflineMethod, OfflineReady, OfflineReply } from './offline-thread.ts';
import type { ThreadPriority } from './thread-priority.ts';

/**
 * The worker thread's side of `createOfflineProviderThread`: runs each call on `provider` (the
 * in-thread offline provider), in the order received, and answers with its result or its error.
 * It first tells the caller that the thread is ready: its code is loaded by then (`warm`).
 */
export function serveOfflineCalls(
  port: MessagePort,
  provider: ModelPort,
  priority: ThreadPriority = { unchanged: 'not asked' },
): void {
  const methods: { [M in OfflineMethod]: (input: OfflineCalls[M][0]) => Promise<unknown> } = {
    summarizeBlock: (input) => provider.summarizeBlock(input),
    extractMemoryEvents: (input) => provider.extractMemoryEvents!(input),
    proposeGraph: (input) => provider.proposeGraph!(input),
  };
  port.on('message', (message: { id: number; method: OfflineMethod; input: never }) => {
    const reply = (r: OfflineReply) => port.postMessage(r);
    const run = methods[message.method];
    if (!run) {
      reply({
        id: message.id,
        error: { name: 'Error', message: `unknown method ${message.method}` },
      });
      return;
    }
    // Errors thrown before the promise (an input the provider cannot read) are answered too.
    Promise.resolve()
      .then(() => run(message.input))
      .then(
        (result) => reply({ id: message.id, result }),
        (error: unknown) => {
          const e = error as {
            name?: string;
            message?: string;
            code?: string;
            transient?: boolean;
          };
          reply({
            id: message.id,
            error: {
              name: e.name ?? 'Error',
              message: e.message ?? String(error),
              ...(typeof e.code === 'string' ? { code: e.code } : {}),
              ...(typeof e.transient === 'boolean' ? { transient: e.transient } : {}),
            },
          });
        },
      );
  });
  const ready: OfflineReady = { ready: true, priority };
  port.postMessage(ready);
}
