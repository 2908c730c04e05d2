import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'stratagate.mjs');

export interface SpawnedServer {
  url: string;
  /** The key the server printed on its first start. */
  key: string;
  child: ChildProcess;
  /** What the server printed on stdout so far. */
  stdout(): string;
  stop(): Promise<void>;
}

/**
 * Runs the real `stratagate serve` as a child process on a free port and reads its URL and
 * first-start key from stdout, as a user would. With `key`, the operator supplies the key
 * (STRATAGATE_API_KEY, stored hashed like any other): nothing is printed for it, so only the URL
 * is awaited (a restart of a server started without one prints no key either).
 */
export async function spawnServer(
  args: string[],
  env: Record<string, string> = {},
  key?: string,
): Promise<SpawnedServer> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], {
    env: {
      ...process.env,
      STRATAGATE_LOG_LEVEL: 'warn',
      DATABASE_URL: '',
      ...env,
      ...(key ? { STRATAGATE_API_KEY: key } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const started = await new Promise<{ url: string; key: string }>((resolve, reject) => {
    // Two minutes: a first start creates two stores, and test files share two cores.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start: ${out}${err}`));
    }, 120_000);
    child.stdout!.on('data', (d) => {
      out += d;
      const url = /HTTP API: (\S+)/.exec(out)?.[1];
      const printed = key ?? /\n\s+(sg_\S+)\n/.exec(out)?.[1];
      if (url && printed) {
        clearTimeout(timer);
        resolve({ url, key: printed });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited ${code}: ${out}${err}`));
    });
  });
  return {
    ...started,
    child,
    stdout: () => out,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
