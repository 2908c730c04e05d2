import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '@stratagate/store';
import { openTestDatabase } from '@stratagate/store/testing';
import { loadConfig, startNode } from '@stratagate/runtime';
import { turn } from './harness.ts';
import { spawnServer, type SpawnedServer } from './support/spawn-server.ts';

const onServer = Boolean(process.env.DATABASE_URL);
const skipNote = onServer ? '' : ' [skipped: needs a Postgres server (DATABASE_URL)]';
const BACKGROUND = 'roles [ingest, query] and, in a background thread, [projector, consolidator]';
/**
 * Every turn after the first waits until the projector has applied the one before (a bound of
 * 1 ms), and nothing but a report from the worker lets it go (ADR 0031): without the reports the
 * second turn would wait ten minutes, past the test's timeout.
 */
const HELD_BY_THE_WORKER = {
  STRATAGATE_MAX_PROJECTION_LAG_MS: '1',
  STRATAGATE_BACKPRESSURE_MAX_WAIT_MS: '600000',
};

// Each test starts servers on fresh embedded directories; beside other test files on a loaded
// machine one cold start took over a minute.
const COLD_STARTS_MS = 360_000;

const call = (
  server: SpawnedServer,
  path: string,
  body?: unknown,
  method = body ? 'POST' : 'GET',
) =>
  fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });

/** Waits until space `bg` has `ready` ready blocks and everything in the log is projected. */
async function settled(server: SpawnedServer, ready: number) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const res = await call(server, '/v1/spaces/bg/status');
    const body = (await res.json()) as unknown;
    // 404 until the worker's projector has applied the space's first records.
    if (res.status !== 200 && res.status !== 404) {
      throw new Error(`status answered ${res.status}: ${JSON.stringify(body)}`);
    }
    if (res.status === 200) {
      const status = body as {
        blocks: { total: number; ready: number };
        projectedPosition: number;
        logPosition: number;
      };
      if (status.blocks.ready === ready && status.projectedPosition === status.logPosition) {
        return status;
      }
    }
    if (Date.now() > deadline) throw new Error(`not consolidated: ${JSON.stringify(body)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const turnRanges = async (server: SpawnedServer) =>
  (
    (await (await call(server, '/v1/spaces/bg/threads/t1/context')).json()) as {
      blocks: { turnRange: number[] }[];
    }
  ).blocks.map((b) => b.turnRange);

/**
 * Posts 14 turns (blocks of 6) to a server whose main thread runs only ingest and query: the
 * worker's projector and consolidator make both blocks ready and project it all. Started with
 * HELD_BY_THE_WORKER, each turn is admitted on the worker's report of the one before. Then SIGTERM:
 * the HTTP server closes, the worker's roles finish their batch, exit code 0.
 */
async function servesThroughTheWorker(server: SpawnedServer) {
  expect(server.stdout()).toContain(BACKGROUND);
  expect((await call(server, '/v1/spaces/bg/settings', { blockSize: 6 }, 'PUT')).status).toBe(200);
  for (let i = 1; i <= 14; i++) {
    expect((await call(server, '/v1/spaces/bg/turns', turn(i))).status).toBe(202);
  }
  const status = await settled(server, 2);
  expect(status.blocks).toMatchObject({ total: 2, ready: 2 });
  expect(await turnRanges(server)).toEqual([
    [1, 6],
    [7, 12],
  ]);
  await stops(server);
}

async function stops(server: SpawnedServer) {
  const exited = new Promise<number | null>((resolve) =>
    server.child.once('exit', (code) => resolve(code)),
  );
  server.child.kill('SIGTERM');
  expect(await exited).toBe(0);
}

describe('serve on a Postgres server: projector and consolidator in a background thread (ADR 0016)', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c();
  });

  it.skipIf(!onServer)(
    `projects and consolidates what the main thread acknowledges, reports its progress to the main thread's ingest, and stops cleanly${skipNote}`,
    async () => {
      const db = await openTestDatabase('background_thread');
      cleanup.push(() => db.close());
      const server: SpawnedServer = await spawnServer(['--database-url', db.url!], {
        STRATAGATE_LOG_LEVEL: 'silent',
        ...HELD_BY_THE_WORKER,
      });
      cleanup.push(() => server.stop());
      await servesThroughTheWorker(server);
    },
  );
});

describe('serve on an embedded data directory: the log and the read models in two stores, one per thread (ADR 0030)', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c();
  });
  const tempDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sg-split-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    return dir;
  };

  it(
    'a new directory gets the split layout: the worker projects what the main thread acknowledges and reports its progress there, and a restart keeps it all',
    async () => {
      const dir = await tempDir();
      const first = await spawnServer(['--data-dir', dir], {
        STRATAGATE_LOG_LEVEL: 'silent',
        ...HELD_BY_THE_WORKER,
      });
      cleanup.push(() => first.stop());
      expect(existsSync(join(dir, 'log', 'PG_VERSION'))).toBe(true);
      expect(existsSync(join(dir, 'read-model', 'PG_VERSION'))).toBe(true);
      expect(existsSync(join(dir, 'PG_VERSION'))).toBe(false);
      await servesThroughTheWorker(first);

      // The key lives with the log; the read models with the worker's store: both survive.
      const again = await spawnServer(
        ['--data-dir', dir],
        { STRATAGATE_LOG_LEVEL: 'silent' },
        first.key,
      );
      cleanup.push(() => again.stop());
      expect(again.stdout()).toContain(BACKGROUND);
      expect(await turnRanges(again)).toEqual([
        [1, 6],
        [7, 12],
      ]);
      // A turn after the restart lands on the open tail and is projected by the new worker.
      expect((await call(again, '/v1/spaces/bg/turns', turn(15))).status).toBe(202);
      const status = await settled(again, 2);
      expect(status.logPosition).toBeGreaterThan(0);
      const context = (await (await call(again, '/v1/spaces/bg/threads/t1/context')).json()) as {
        openTail: { turns: number };
      };
      expect(context.openTail.turns).toBe(3);
      await stops(again);
    },
    COLD_STARTS_MS,
  );

  it(
    'refuses to start when the log lost records its read models applied, and starts again once they are projected anew',
    async () => {
      const dir = await tempDir();
      const first = await spawnServer(['--data-dir', dir], { STRATAGATE_LOG_LEVEL: 'silent' });
      cleanup.push(() => first.stop());
      expect((await call(first, '/v1/spaces/bg/settings', { blockSize: 6 }, 'PUT')).status).toBe(
        200,
      );
      for (let i = 1; i <= 6; i++) {
        expect((await call(first, '/v1/spaces/bg/turns', turn(i))).status).toBe(202);
      }
      await settled(first, 1);
      await stops(first);
      // What an operating-system crash can do to unflushed files, at its worst: the log's store is
      // gone while the read models' store kept what it had applied.
      await rm(join(dir, 'log'), { recursive: true, force: true });
      await expect(
        spawnServer(['--data-dir', dir], { STRATAGATE_LOG_LEVEL: 'silent' }),
      ).rejects.toThrow(
        /the read models have applied the log through position \d+, but the log ends at 0: .*delete it and start again/s,
      );

      // What the message says to do: the read models' store is derived from the log alone.
      await rm(join(dir, 'read-model'), { recursive: true, force: true });
      const again = await spawnServer(['--data-dir', dir], { STRATAGATE_LOG_LEVEL: 'silent' });
      cleanup.push(() => again.stop());
      expect(again.stdout()).toContain(BACKGROUND);
      // The read models now hold what the log holds: nothing of the lost space.
      expect((await call(again, '/v1/spaces/bg/status')).status).toBe(404);
      await stops(again);
    },
    COLD_STARTS_MS,
  );

  it(
    'a directory from before keeps its one database and runs every role on one thread',
    async () => {
      const dir = await tempDir();
      // Written the way the embedded default wrote it before ADR 0030: one PGlite store in the
      // directory itself.
      const config = loadConfig({}, { STRATAGATE_DATA_DIR: dir, STRATAGATE_LOG_LEVEL: 'silent' });
      const node = await startNode(config, {
        logger: false,
        listen: false,
        database: await openDatabase({ kind: 'pglite', dataDir: dir }),
      });
      const inject = async (method: 'POST' | 'PUT', url: string, payload: object) =>
        (
          await node.http!.inject({
            method,
            url,
            headers: { authorization: `Bearer ${node.createdKey!}` },
            payload,
          })
        ).statusCode;
      expect(await inject('PUT', '/v1/spaces/bg/settings', { blockSize: 6 })).toBe(200);
      for (let i = 1; i <= 3; i++)
        expect(await inject('POST', '/v1/spaces/bg/turns', turn(i))).toBe(202);
      await node.stop();
      expect(existsSync(join(dir, 'PG_VERSION'))).toBe(true);

      const server = await spawnServer(
        ['--data-dir', dir],
        { STRATAGATE_LOG_LEVEL: 'silent' },
        node.createdKey!,
      );
      cleanup.push(() => server.stop());
      expect(server.stdout()).toContain(
        'StrataGate roles [ingest, projector, consolidator, query] running',
      );
      expect(server.stdout()).not.toContain('background thread');
      // Turns 4–6 complete the block that turns 1–3, written before, began.
      for (let i = 4; i <= 6; i++) {
        expect((await call(server, '/v1/spaces/bg/turns', turn(i))).status).toBe(202);
      }
      await settled(server, 1);
      expect(await turnRanges(server)).toEqual([[1, 6]]);
      expect(existsSync(join(dir, 'log'))).toBe(false);
      expect(existsSync(join(dir, 'read-model'))).toBe(false);
      await stops(server);
    },
    COLD_STARTS_MS,
  );
});
