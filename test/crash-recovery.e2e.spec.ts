import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, startNode } from '@stratagate/runtime';
import { describeBackend, openTestDatabase } from '@stratagate/store/testing';
import { turn } from './harness.ts';
import { spawnServer } from './support/spawn-server.ts';

describe(`crash between append and projection (${describeBackend()})`, () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c();
  });

  it('loses nothing: after a SIGKILL the projector resumes from its checkpoint', async () => {
    let store: string[];
    let overrides: Record<string, string>;
    if (process.env.DATABASE_URL) {
      const db = await openTestDatabase('crash');
      cleanup.push(() => db.close());
      store = ['--database-url', db.url!];
      overrides = { DATABASE_URL: db.url! };
    } else {
      const dir = await mkdtemp(join(tmpdir(), 'sg-crash-'));
      cleanup.push(() => rm(dir, { recursive: true, force: true }));
      store = ['--data-dir', dir];
      overrides = { STRATAGATE_DATA_DIR: dir };
    }
    // Ingest only: records are appended and acknowledged, but nothing projects them.
    const server = await spawnServer(['--role', 'ingest', ...store], {
      STRATAGATE_LOG_LEVEL: 'silent',
    });
    const post = (path: string, body: unknown, method = 'POST') =>
      fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await post('/v1/spaces/crash/settings', { blockSize: 6 }, 'PUT')).status).toBe(200);
    for (let i = 1; i <= 14; i++)
      expect((await post('/v1/spaces/crash/turns', turn(i))).status).toBe(202);
    server.child.kill('SIGKILL');
    await new Promise((r) => server.child.once('exit', r));

    // Restart on the same store with every role.
    const config = loadConfig({}, { STRATAGATE_LOG_LEVEL: 'silent', ...overrides });
    const node = await startNode(config, { logger: false, listen: false, bootstrapKey: false });
    cleanup.push(() => node.stop());
    const get = async (url: string) => {
      const res = await node.http!.inject({
        method: 'GET',
        url,
        headers: { authorization: `Bearer ${server.key}` },
      });
      return res.json();
    };
    // Wait until every derived record (summaries, events, graph, topics) is appended and projected.
    const deadline = Date.now() + 60_000;
    let ctx;
    let status;
    for (;;) {
      ctx = await get('/v1/spaces/crash/threads/t1/context');
      status = await get('/v1/spaces/crash/status');
      const settled =
        ctx.blocks?.length === 2 &&
        status.graphJobs.pending === 0 &&
        status.topicJobs.status !== 'due' &&
        status.projectedPosition >= status.logPosition;
      if (settled || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(ctx.blocks.map((b: { turnRange: number[] }) => b.turnRange)).toEqual([
      [1, 6],
      [7, 12],
    ]);
    expect(ctx.openTail.turns).toBe(2);
    expect(status.turnCounter).toBe(14);
    expect(status.projectedPosition).toBe(status.logPosition);
  });
});
