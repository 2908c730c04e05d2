import { spawnServer, type SpawnedServer } from '../test/support/spawn-server.ts';

export {
  spawnServer as startServer,
  type SpawnedServer as BenchServer,
} from '../test/support/spawn-server.ts';

/** `stratagate serve` with an operator-supplied key (see `spawnServer`). */
export const startServerWithKey = (
  args: string[],
  key: string,
  env: Record<string, string> = {},
): Promise<SpawnedServer> => spawnServer(args, env, key);

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
