import { afterAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '@stratagate/store';
import { turn } from './harness.ts';
import { spawnServer, type SpawnedServer } from './support/spawn-server.ts';

const onServer = Boolean(process.env.DATABASE_URL);
const skipNote = onServer
  ? ''
  : ' [skipped: needs a Postgres server (DATABASE_URL); on PGlite every role runs on one thread]';

describe('serve on a Postgres server: projector and consolidator in a background thread (ADR 0016)', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c();
  });

  it.skipIf(!onServer)(
    `projects and consolidates what the main thread acknowledges, and stops cleanly${skipNote}`,
    async () => {
      const db = await openTestDatabase('background_thread');
      cleanup.push(() => db.close());
      const server: SpawnedServer = await spawnServer(['--database-url', db.url!], {
        STRATAGATE_LOG_LEVEL: 'silent',
      });
      cleanup.push(() => server.stop());
      expect(server.stdout()).toContain(
        'roles [ingest, query] and, in a background thread, [projector, consolidator]',
      );
      const call = (path: string, body?: unknown, method = body ? 'POST' : 'GET') =>
        fetch(`${server.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
      expect((await call('/v1/spaces/bg/settings', { blockSize: 6 }, 'PUT')).status).toBe(200);
      for (let i = 1; i <= 14; i++)
        expect((await call('/v1/spaces/bg/turns', turn(i))).status).toBe(202);

      // The main thread runs only ingest and query: the worker's projector and consolidator
      // make both blocks ready (summary, extraction and graph jobs done) and project it all.
      const deadline = Date.now() + 60_000;
      let status: {
        blocks: { total: number; ready: number };
        projectedPosition: number;
        logPosition: number;
      };
      for (;;) {
        const res = await call('/v1/spaces/bg/status');
        const body = (await res.json()) as unknown;
        // 404 until the worker's projector has applied the space's first records.
        if (res.status !== 200 && res.status !== 404) {
          throw new Error(`status answered ${res.status}: ${JSON.stringify(body)}`);
        }
        if (res.status === 200) {
          status = body as typeof status;
          if (status.blocks.ready === 2 && status.projectedPosition === status.logPosition) break;
        }
        if (Date.now() > deadline) throw new Error(`not consolidated: ${JSON.stringify(body)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(status.blocks).toMatchObject({ total: 2, ready: 2 });
      const context = (await (await call('/v1/spaces/bg/threads/t1/context')).json()) as {
        blocks: { turnRange: number[] }[];
      };
      expect(context.blocks.map((b) => b.turnRange)).toEqual([
        [1, 6],
        [7, 12],
      ]);

      // SIGTERM: the HTTP server closes, the worker's roles finish their batch, exit code 0.
      const exited = new Promise<number | null>((resolve) =>
        server.child.once('exit', (code) => resolve(code)),
      );
      server.child.kill('SIGTERM');
      expect(await exited).toBe(0);
    },
  );
});
