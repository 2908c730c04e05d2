import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { SpawnedServer } from '../test/support/spawn-server.ts';

export {
  spawnServer as startServer,
  type SpawnedServer as BenchServer,
} from '../test/support/spawn-server.ts';

const BIN = join(import.meta.dirname, '..', 'bin', 'stratagate.mjs');

/**
 * `stratagate serve` with an operator-supplied key (STRATAGATE_API_KEY, stored hashed like any
 * other): unlike a first start, a restart prints no key, so this waits for the URL only.
 */
export async function startServerWithKey(
  args: string[],
  key: string,
  env: Record<string, string> = {},
): Promise<SpawnedServer> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], {
    env: {
      ...process.env,
      STRATAGATE_LOG_LEVEL: 'warn',
      DATABASE_URL: '',
      ...env,
      STRATAGATE_API_KEY: key,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}${err}`)), 60_000);
    child.stdout!.on('data', (d) => {
      out += d;
      const found = /HTTP API: (\S+)/.exec(out)?.[1];
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited ${code}: ${out}${err}`));
    });
  });
  return {
    url,
    key,
    child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Peak resident set size of a process, from /proc (Linux), in MiB. */
export async function peakRssMiB(pid: number): Promise<number | null> {
  const { readFile } = await import('node:fs/promises');
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
    return kb ? Math.round(Number(kb) / 1024) : null;
  } catch {
    return null;
  }
}
