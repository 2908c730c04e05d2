import { parentPort, workerData } from 'node:worker_threads';
import { connectPGliteSession, hostPGliteSession, openDatabase } from '@stratagate/store';
import type { ProjectionProgress } from '@stratagate/ingest';
import type { BackgroundData, BackgroundMessage } from './background-thread.ts';
import { startNode, type StrataGateNode } from './node.ts';
import { embeddedTargets } from './stores.ts';

/**
 * The worker thread's side of `startBackgroundThread`: starts the roles it was given, reports
 * that they run, and stops them gracefully when asked. Nothing listens for HTTP here. On the
 * embedded split layout (ADR 0030) this thread owns the read-model store and serves it to the
 * main thread, and reaches the log's store, which the main thread owns, through a port.
 */
const port = parentPort!;
const post = (message: BackgroundMessage) => port.postMessage(message);
const { config, embedded, reportProjected, reportMoved } = workerData as BackgroundData;
// The projector moves every idle pass too: a message of each kind at most this often is enough
// for a readiness bound several times longer.
const movedEveryMs = Math.min(1_000, config.STRATAGATE_READY_STALL_MS / 4);
const lastMoved = { core: -Infinity, lane: -Infinity };
const onProjected = {
  ...(reportProjected
    ? { onProjected: (progress: ProjectionProgress) => post({ type: 'projected', progress }) }
    : {}),
  ...(reportMoved
    ? {
        onMoved: (what: keyof typeof lastMoved) => {
          const now = performance.now();
          if (now - lastMoved[what] < movedEveryMs) return;
          lastMoved[what] = now;
          post({ type: 'moved', what });
        },
      }
    : {}),
};

async function start(): Promise<{ node: StrataGateNode; close: () => Promise<void> }> {
  if (!embedded) {
    const node = await startNode(config, { listen: false, bootstrapKey: false, ...onProjected });
    return { node, close: async () => {} };
  }
  const targets = embeddedTargets(config.STRATAGATE_DATA_DIR);
  const database = await openDatabase(targets.readModel);
  const host = hostPGliteSession(database.session!, embedded.readModel);
  const logDatabase = connectPGliteSession(embedded.log, targets.log);
  const close = async () => {
    await logDatabase.close();
    await host.close();
    await database.close();
  };
  try {
    const node = await startNode(config, {
      listen: false,
      bootstrapKey: false,
      database,
      logDatabase,
      closeDatabases: false,
      ...onProjected,
    });
    return { node, close };
  } catch (error) {
    await close();
    throw error;
  }
}

try {
  const { node, close } = await start();
  port.on('message', (message: { type: string }) => {
    if (message.type !== 'stop') return;
    void node
      .stop()
      .then(close)
      .finally(() => {
        post({ type: 'stopped' });
        port.close();
      });
  });
  post({ type: 'started' });
} catch (error) {
  post({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
  port.close();
}
