import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServer, type SpawnedServer } from './support/spawn-server.ts';

const BIN = join(import.meta.dirname, '..', 'bin', 'stratagate.mjs');

/** What a finished `stratagate` command said; `exitedIn` fails the test if it never exits. */
async function cli(args: string[], exitedIn = 90_000) {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, DATABASE_URL: '', STRATAGATE_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`stratagate ${args.join(' ')} did not exit in ${exitedIn} ms: ${stdout}`));
    }, exitedIn);
    child.once('exit', (c) => {
      clearTimeout(timer);
      resolve(c);
    });
  });
  return { code, stdout, stderr };
}

const keyIn = (out: string) => /(sg_[a-z0-9]{12}_[A-Za-z0-9_-]{43})/.exec(out)?.[1];

/**
 * The embedded data directory has one owner (ADR 0033): real `stratagate` processes on one
 * directory, as a user would run them in two terminals.
 */
describe('one process per embedded data directory (PGlite, real processes)', () => {
  let root: string;
  let dir: string;
  let server: SpawnedServer;
  let adminKey: string;
  let acmeKey: string;

  const get = (key: string, path: string) =>
    fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
  const turnCount = async (key: string) => {
    const res = await get(key, '/v1/spaces/demo/status');
    expect(res.status).toBe(200);
    return ((await res.json()) as { turnCounter: number }).turnCounter;
  };
  const lockFile = () => join(dir, 'stratagate.lock');

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'sg-owner-'));
    dir = join(root, 'data');
    server = await spawnServer(['--data-dir', dir]);
    adminKey = server.key;
    for (let i = 1; i <= 3; i++) {
      const res = await fetch(`${server.url}/v1/spaces/demo/turns`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          turnId: `t${i}`,
          threadId: 's1',
          occurredAt: '2026-01-01T10:00:00Z',
          messages: [{ role: 'user', content: `turn ${i}` }],
        }),
      });
      expect(res.status).toBe(202);
    }
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('refuses a second server and other commands on the directory, naming the owner; nothing is lost', async () => {
    const pid = server.child.pid!;
    const owner = JSON.parse(readFileSync(lockFile(), 'utf8')) as { pid: number };
    expect(owner.pid).toBe(pid);
    for (const args of [
      ['serve', '--data-dir', dir, '--port', '0'],
      ['migrate', '--data-dir', dir],
    ]) {
      const second = await cli(args);
      expect(second.code).toBe(1);
      expect(second.stderr).toContain(`in use by process ${pid} (stratagate serve, since `);
      expect(second.stderr).toContain(`kill ${pid}`);
    }
    // The first one still serves everything it had, and still owns the directory.
    expect(await turnCount(adminKey)).toBe(3);
    expect(JSON.parse(readFileSync(lockFile(), 'utf8')).pid).toBe(pid);
  }, 300_000);

  it('creates a key through the running server that works at once', async () => {
    const made = await cli(['keys', 'create', '--tenant', 'acme', '--data-dir', dir]);
    expect(made.code).toBe(0);
    expect(made.stderr).toContain(`through the running server (process ${server.child.pid})`);
    acmeKey = keyIn(made.stdout)!;
    expect(acmeKey).toBeDefined();
    // Another tenant's key: the space "demo" of tenant acme does not exist (404, not 401).
    expect((await get(acmeKey, '/v1/spaces/demo/status')).status).toBe(404);
    const listed = await cli(['keys', 'list', '--data-dir', dir]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`${acmeKey.slice(3, 15)}\\s+acme\\s+active`));
  }, 180_000);

  it('revokes through the running server, effective at once', async () => {
    const made = await cli([
      'keys',
      'create',
      '--tenant',
      'acme',
      '--label',
      'short-lived',
      '--data-dir',
      dir,
    ]);
    const key = keyIn(made.stdout)!;
    expect((await get(key, '/v1/spaces/demo/status')).status).toBe(404);
    const keyId = key.slice(3, 15);
    const revoked = await cli(['keys', 'revoke', keyId, '--data-dir', dir]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`revoked ${keyId}`);
    expect((await get(key, '/v1/spaces/demo/status')).status).toBe(401);
    // Still revoked after a restart; the key made through the server still works.
    await server.stop();
    expect(existsSync(lockFile())).toBe(false);
    server = await spawnServer(['--data-dir', dir], {}, adminKey);
    expect((await get(key, '/v1/spaces/demo/status')).status).toBe(401);
    expect((await get(acmeKey, '/v1/spaces/demo/status')).status).toBe(404);
    expect(await turnCount(adminKey)).toBe(3);
  }, 300_000);

  it('with the server stopped, keys create stores the key itself and exits', async () => {
    await server.stop();
    const made = await cli(['keys', 'create', '--tenant', 'later', '--data-dir', dir], 60_000);
    expect(made.code).toBe(0);
    expect(made.stderr).not.toContain('through the running server');
    const key = keyIn(made.stdout)!;
    expect(existsSync(lockFile())).toBe(false);
    server = await spawnServer(['--data-dir', dir], {}, adminKey);
    expect((await get(key, '/v1/spaces/demo/status')).status).toBe(404);
    expect(await turnCount(adminKey)).toBe(3);
  }, 300_000);

  it('takes over the lock of a server that was killed', async () => {
    const killed = server.child.pid!;
    const exited = new Promise((r) => server.child.once('exit', r));
    server.child.kill('SIGKILL');
    await exited;
    // SIGKILL leaves the lock behind, naming a process that is gone.
    expect(JSON.parse(readFileSync(lockFile(), 'utf8')).pid).toBe(killed);
    server = await spawnServer(['--data-dir', dir], {}, adminKey);
    expect(JSON.parse(readFileSync(lockFile(), 'utf8')).pid).toBe(server.child.pid);
    expect(await turnCount(adminKey)).toBe(3);
  }, 300_000);
});
