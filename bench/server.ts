import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const BIN = join(import.meta.dirname, '..', 'bin', 'stratagate.mjs');

export interface BenchServer {
  url: string;
  key: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** The real `stratagate serve` in its own process, so the load generator does not share its CPU. */
export async function startServer(
  args: string[],
  env: Record<string, string> = {},
): Promise<BenchServer> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], {
    env: { ...process.env, STRATAGATE_LOG_LEVEL: 'warn', DATABASE_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const { url, key } = await new Promise<{ url: string; key: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 60_000);
    child.stdout!.on('data', (d) => {
      out += d;
      const url = /HTTP API: (\S+)/.exec(out)?.[1];
      const key = /\n\s+(sg_\S+)\n/.exec(out)?.[1];
      if (url && key) {
        clearTimeout(timer);
        resolve({ url, key });
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${out}`)));
  });
  return {
    url,
    key,
    child,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
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
