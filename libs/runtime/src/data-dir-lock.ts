import { randomBytes } from 'node:crypto';
import { readFileSync, unlinkSync } from 'node:fs';
import { link, mkdir, open, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';

/**
 * One process owns an embedded data directory at a time (ADR 0033). PGlite is Postgres in
 * single-user mode: two processes that open the same files each believe they are alone, and
 * what one writes the other neither sees nor keeps. The owner writes who it is into
 * `stratagate.lock` in the directory; everyone else is refused with that description.
 */
export const LOCK_FILE = 'stratagate.lock';

/** What the lock file says about the process that owns the directory. */
export interface DataDirOwner {
  pid: number;
  hostname: string;
  /** What runs, e.g. `stratagate serve` (no arguments: they might carry secrets). */
  command: string;
  /** ISO time the owner took the directory. */
  since: string;
  /** Linux: the owner's start time in clock ticks after boot, to tell a reused pid apart. */
  processStart?: number;
  /** Set by a serving process: where and how the CLI reaches it (ADR 0033). */
  admin?: { url: string; token: string };
  /** Random per acquisition: release only removes the lock this acquisition wrote. */
  nonce: string;
}

/** Another live process owns the directory. */
export class DataDirInUse extends Error {
  constructor(
    readonly dataDir: string,
    readonly owner: DataDirOwner,
    readonly lockPath: string,
  ) {
    super(describeOwner(dataDir, owner, lockPath));
    this.name = 'DataDirInUse';
  }
}

export interface DataDirLock {
  readonly dataDir: string;
  readonly path: string;
  readonly owner: DataDirOwner;
  /** Records how the CLI reaches this process (rewrites the lock file atomically). */
  advertise(admin: { url: string; token: string }): Promise<void>;
  /** Removes the lock if it is still this acquisition's. Idempotent. */
  release(): Promise<void>;
}

/** Directories this process holds, so a second open in the same process is refused too. */
const heldHere = new Set<string>();

export interface LockOptions {
  /** Overrides for tests: this process's identity as the lock file records it. */
  pid?: number;
  hostname?: string;
}

/**
 * Takes `dataDir` (created if missing) for `command`, or throws `DataDirInUse` naming the owner.
 * The lock file appears whole or not at all: it is written under a temporary name and hard-linked
 * into place, which fails if a lock already exists. A lock whose process is gone (no such pid,
 * or the pid now belongs to a process started later) is removed and taken over.
 */
export async function lockDataDir(
  dataDir: string,
  command: string,
  options: LockOptions = {},
): Promise<DataDirLock> {
  await mkdir(dataDir, { recursive: true });
  const path = join(dataDir, LOCK_FILE);
  const pid = options.pid ?? process.pid;
  const owner: DataDirOwner = {
    pid,
    hostname: options.hostname ?? hostname(),
    command,
    since: new Date().toISOString(),
    ...(processStartTime(pid) !== undefined ? { processStart: processStartTime(pid)! } : {}),
    nonce: randomBytes(12).toString('hex'),
  };
  for (let attempt = 0; ; attempt++) {
    if (heldHere.has(path)) throw new Error(`the data directory ${dataDir} is already open here`);
    if (await createExclusive(path, owner)) break;
    const current = await readOwner(path);
    if (!current) continue; // released between our link and our read: try again
    if (ownerAlive(current.owner)) throw new DataDirInUse(dataDir, current.owner, path);
    // A stale lock: remove exactly that file, then race for the directory like everyone else.
    await breakStaleLock(path, current.text);
    if (attempt > 20) throw new Error(`could not take ${path}: it keeps changing`);
  }
  heldHere.add(path);
  let released = false;
  const releaseSync = () => {
    if (released) return;
    released = true;
    heldHere.delete(path);
    try {
      if (JSON.parse(readFileSync(path, 'utf8')).nonce === owner.nonce) unlinkSync(path);
    } catch {
      // Gone already, or unreadable: nothing of ours to remove.
    }
  };
  // process.exit() and an uncaught error skip `release()`; a lock left by SIGKILL is found
  // stale by the next process instead.
  process.once('exit', releaseSync);
  let current = owner;
  return {
    dataDir,
    path,
    get owner() {
      return current;
    },
    async advertise(admin) {
      current = { ...current, admin };
      const temp = `${path}.${current.nonce}.tmp`;
      await writeFile(temp, JSON.stringify(current, null, 2) + '\n', { mode: 0o600 });
      await rename(temp, path);
    },
    async release() {
      process.removeListener('exit', releaseSync);
      releaseSync();
    },
  };
}

/** The lock file's owner, or null when there is none. */
export async function readDataDirOwner(dataDir: string): Promise<DataDirOwner | null> {
  return (await readOwner(join(dataDir, LOCK_FILE)))?.owner ?? null;
}

/** Whether the process a lock names still runs (and is the one that wrote it). */
export function ownerAlive(owner: DataDirOwner, here = hostname()): boolean {
  // On another machine (a shared volume) nothing here can tell: the lock stands.
  if (owner.hostname !== here) return true;
  // Our own pid in a lock we do not hold: a previous run in a container, where pids restart.
  if (owner.pid === process.pid) return false;
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    // EPERM: it exists and belongs to someone else.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const started = processStartTime(owner.pid);
  return owner.processStart === undefined || started === undefined
    ? true
    : started === owner.processStart;
}

export function describeOwner(dataDir: string, owner: DataDirOwner, lockPath: string): string {
  const where = owner.hostname === hostname() ? '' : ` on host ${owner.hostname}`;
  const remote =
    owner.hostname === hostname()
      ? ''
      : ` If that host no longer runs it, delete ${lockPath} and try again.`;
  return (
    `the data directory ${dataDir} is in use by process ${owner.pid}${where} ` +
    `(${owner.command}, since ${owner.since}); one process at a time can open it. ` +
    `Stop that process first (Ctrl-C in its terminal, or kill ${owner.pid}), or point this ` +
    `command at another directory with --data-dir.${remote}`
  );
}

async function createExclusive(path: string, owner: DataDirOwner): Promise<boolean> {
  const temp = `${path}.${owner.nonce}.tmp`;
  const file = await open(temp, 'wx', 0o600);
  try {
    await file.writeFile(JSON.stringify(owner, null, 2) + '\n');
  } finally {
    await file.close();
  }
  try {
    await link(temp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(temp).catch(() => {});
  }
}

async function readOwner(path: string): Promise<{ owner: DataDirOwner; text: string } | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    return { owner: JSON.parse(text) as DataDirOwner, text };
  } catch {
    // Not ours, or written by hand: refuse rather than guess.
    throw new Error(
      `${path} is not a StrataGate lock file; remove it if nothing uses the directory`,
    );
  }
}

/**
 * Removes the stale lock whose content was `seen`, under a short-lived breaker file of its own:
 * two processes that both found it stale must not remove the fresh lock one of them took after.
 */
async function breakStaleLock(path: string, seen: string): Promise<void> {
  const breaker = `${path}.break`;
  let handle;
  try {
    handle = await open(breaker, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // Another process is breaking it. A breaker left by a process that died in these few
    // statements is removed once it is clearly old.
    const age = await stat(breaker).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    if (age > BREAKER_STALE_MS) await unlink(breaker).catch(() => {});
    else await new Promise((r) => setTimeout(r, 20));
    return;
  }
  try {
    const now = await readFile(path, 'utf8').catch(() => null);
    if (now === seen) await unlink(path);
  } finally {
    await handle.close();
    await unlink(breaker).catch(() => {});
  }
}

const BREAKER_STALE_MS = 10_000;

/** Linux: when `pid` started, in clock ticks after boot (field 22 of /proc/<pid>/stat). */
function processStartTime(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count after its end.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const value = Number(fields[19]);
    return Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
