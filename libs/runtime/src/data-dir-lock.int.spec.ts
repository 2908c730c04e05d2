import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  DataDirInUse,
  LOCK_FILE,
  lockDataDir,
  readDataDirOwner,
  type DataDirOwner,
} from './data-dir-lock.ts';

/** Rounds of the race below: each is eight processes at once. */
const ROUNDS = 3;

/** A pid that belonged to a process a moment ago and no longer does. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((r) => child.once('exit', r));
  return child.pid!;
}

const staleLock = (pid: number, extra: Partial<DataDirOwner> = {}): DataDirOwner => ({
  pid,
  hostname: hostname(),
  command: 'stratagate serve',
  since: '2026-01-01T00:00:00.000Z',
  nonce: 'feedfeedfeedfeedfeedfeed',
  ...extra,
});

describe('one owner per embedded data directory', () => {
  let dir: string;
  beforeEach(async () => {
    dir = join(await mkdtemp(join(tmpdir(), 'sg-lock-')), 'data');
  });
  afterEach(async () => {
    await rm(join(dir, '..'), { recursive: true, force: true });
  });

  it('writes who owns the directory, readable only by its user, and removes it on release', async () => {
    const lock = await lockDataDir(dir, 'stratagate serve');
    const owner = await readDataDirOwner(dir);
    expect(owner).toMatchObject({
      pid: process.pid,
      hostname: hostname(),
      command: 'stratagate serve',
    });
    expect(Date.parse(owner!.since)).not.toBeNaN();
    const { mode } = await import('node:fs/promises').then((fs) => fs.stat(join(dir, LOCK_FILE)));
    expect(mode & 0o077).toBe(0);
    await lock.advertise({ url: 'http://127.0.0.1:1', token: 't' });
    expect((await readDataDirOwner(dir))?.admin).toEqual({ url: 'http://127.0.0.1:1', token: 't' });
    await lock.release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    await lock.release(); // idempotent
    // Free again.
    await (await lockDataDir(dir, 'again')).release();
  });

  it('refuses a second owner in the same process', async () => {
    const lock = await lockDataDir(dir, 'stratagate serve');
    try {
      await expect(lockDataDir(dir, 'stratagate keys create')).rejects.toThrow(/already open here/);
    } finally {
      await lock.release();
    }
  });

  it('refuses while the owner lives, naming its pid, command and start', async () => {
    await mkdir(dir, { recursive: true });
    // The parent of this test process: alive for the whole test.
    await writeFile(join(dir, LOCK_FILE), JSON.stringify(staleLock(process.ppid)));
    const refused = await lockDataDir(dir, 'stratagate keys create').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DataDirInUse);
    const message = (refused as Error).message;
    expect(message).toContain(`process ${process.ppid}`);
    expect(message).toContain('stratagate serve');
    expect(message).toContain('since 2026-01-01T00:00:00.000Z');
    expect(message).toContain(`kill ${process.ppid}`);
    // The owner's lock is untouched.
    expect(JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8')).pid).toBe(process.ppid);
  });

  it('takes over a lock whose process is gone', async () => {
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, LOCK_FILE), JSON.stringify(staleLock(await deadPid())));
    const lock = await lockDataDir(dir, 'stratagate serve');
    expect((await readDataDirOwner(dir))?.pid).toBe(process.pid);
    await lock.release();
  });

  it.skipIf(!existsSync('/proc/self/stat'))(
    'takes over a lock whose pid now belongs to a later process (Linux: start times differ)',
    async () => {
      await mkdir(dir, { recursive: true });
      await writeFile(
        join(dir, LOCK_FILE),
        JSON.stringify(staleLock(process.ppid, { processStart: 1 })),
      );
      const lock = await lockDataDir(dir, 'stratagate serve');
      expect((await readDataDirOwner(dir))?.pid).toBe(process.pid);
      await lock.release();
    },
  );

  it('takes over a lock that names this very pid (a restarted container)', async () => {
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, LOCK_FILE), JSON.stringify(staleLock(process.pid)));
    const lock = await lockDataDir(dir, 'stratagate serve');
    expect((await readDataDirOwner(dir))?.nonce).not.toBe('feedfeedfeedfeedfeedfeed');
    await lock.release();
  });

  it('never takes over a lock from another host, and says how to clear it', async () => {
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, LOCK_FILE),
      JSON.stringify(staleLock(await deadPid(), { hostname: 'elsewhere.example' })),
    );
    await expect(lockDataDir(dir, 'stratagate serve')).rejects.toThrow(
      new RegExp(`on host elsewhere\\.example.*delete ${join(dir, LOCK_FILE)}`),
    );
  });

  it('refuses a lock file it cannot read instead of guessing', async () => {
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, LOCK_FILE), 'not json');
    await expect(lockDataDir(dir, 'stratagate serve')).rejects.toThrow(/not a StrataGate lock/);
  });

  it('lets exactly one of several processes racing for a stale lock have the directory', async () => {
    // Each contender loads the module, says so, and goes for the lock when told, so that they
    // all find the stale lock together. It keeps what it took until its stdin closes: a late
    // starter cannot take over from an early winner that has already let go.
    const script = `
      import { createInterface } from 'node:readline';
      import { lockDataDir } from ${JSON.stringify(join(import.meta.dirname, 'data-dir-lock.ts'))};
      const lines = createInterface({ input: process.stdin });
      console.log('ready');
      await new Promise((r) => lines.once('line', r));
      try {
        await lockDataDir(process.argv[1], 'contender');
        console.log('won');
        lines.once('close', () => process.exit(0));
      } catch (error) {
        console.log(error.name === 'DataDirInUse' ? 'refused' : 'error ' + error.message);
        process.exit(0);
      }`;
    for (let round = 0; round < ROUNDS; round++) {
      await rm(dir, { recursive: true, force: true });
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, LOCK_FILE), JSON.stringify(staleLock(await deadPid())));
      const contenders = Array.from({ length: 8 }, () => {
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', '--input-type=module', '-e', script, dir],
          { stdio: ['pipe', 'pipe', 'inherit'] },
        );
        const lines: string[] = [];
        const waiters: (() => void)[] = [];
        let buffered = '';
        child.stdout!.setEncoding('utf8').on('data', (d: string) => {
          buffered += d;
          let nl;
          while ((nl = buffered.indexOf('\n')) >= 0) {
            lines.push(buffered.slice(0, nl));
            buffered = buffered.slice(nl + 1);
            waiters.splice(0).forEach((w) => w());
          }
        });
        const line = (n: number) =>
          new Promise<string>((resolve, reject) => {
            const check = () => {
              if (lines.length > n) resolve(lines[n]!);
              else if (child.exitCode !== null) reject(new Error(`contender exited: ${lines}`));
              else waiters.push(check);
            };
            child.once('exit', check);
            check();
          });
        return { child, line };
      });
      await Promise.all(contenders.map((c) => c.line(0)));
      for (const c of contenders) c.child.stdin!.write('go\n');
      const outcomes = await Promise.all(contenders.map((c) => c.line(1)));
      const exited = contenders.map((c) =>
        c.child.exitCode === null ? new Promise((r) => c.child.once('exit', r)) : null,
      );
      for (const c of contenders) c.child.stdin!.end();
      await Promise.all(exited);
      expect(outcomes.filter((o) => o === 'won')).toHaveLength(1);
      expect(outcomes.filter((o) => o === 'refused')).toHaveLength(7);
    }
  }, 300_000);
});
