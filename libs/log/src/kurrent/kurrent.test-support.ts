import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type { KurrentDBClient } from '@kurrent/kurrentdb-client';
import { afterAll, describe } from 'vitest';
import { createKurrentClient } from './kurrent-client.ts';

/** Test helpers of the KurrentDB adapter (not exported from the package). */

/** The image infra/docker-compose.yml runs. */
export const KURRENTDB_IMAGE = 'kurrentplatform/kurrentdb:25.0';

/** A prefix no other case uses: every case gets an empty log on a shared server. */
export const freshStreamPrefix = (): string => `sgt${randomBytes(6).toString('hex')}`;

type Target =
  { kind: 'url'; url: string } | { kind: 'container' } | { kind: 'skip'; reason: string };

/**
 * Where the suite finds a server: KURRENTDB_URL; else a testcontainers container when the package
 * is installed (it is not a dependency of this repository) and Docker answers; else nowhere.
 */
function resolveTarget(): Target {
  const url = process.env.KURRENTDB_URL?.trim();
  if (url) return { kind: 'url', url };
  const unset = 'KURRENTDB_URL is not set (e.g. kurrentdb://127.0.0.1:2113?tls=false)';
  try {
    createRequire(import.meta.url).resolve('testcontainers');
  } catch {
    return { kind: 'skip', reason: `${unset} and testcontainers is not installed` };
  }
  const docker = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], {
    timeout: 5_000,
    encoding: 'utf8',
  });
  if (docker.status !== 0) {
    const why = docker.error?.message ?? docker.stderr.trim().split('\n').at(-1) ?? 'no answer';
    return { kind: 'skip', reason: `${unset} and Docker does not answer (${why})` };
  }
  return { kind: 'container' };
}

export const kurrentTarget = resolveTarget();

/** The bits of testcontainers used here; it is loaded by name so the repository needs no types. */
interface StartedContainer {
  getHost(): string;
  getMappedPort(port: number): number;
  stop(): Promise<unknown>;
}
interface ContainerBuilder {
  withEnvironment(env: Record<string, string>): ContainerBuilder;
  withExposedPorts(...ports: number[]): ContainerBuilder;
  withWaitStrategy(strategy: unknown): ContainerBuilder;
  start(): Promise<StartedContainer>;
}
interface Testcontainers {
  GenericContainer: new (image: string) => ContainerBuilder;
  Wait: { forHttp(path: string, port: number): unknown };
}

async function startContainer(): Promise<{ url: string; stop: () => Promise<unknown> }> {
  const name = 'testcontainers';
  const tc = (await import(name)) as Testcontainers;
  const container = await new tc.GenericContainer(KURRENTDB_IMAGE)
    .withEnvironment({ KURRENTDB_INSECURE: 'true', KURRENTDB_MEM_DB: 'true' })
    .withExposedPorts(2113)
    .withWaitStrategy(tc.Wait.forHttp('/health/live', 2113))
    .start();
  const url = `kurrentdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`;
  return { url, stop: () => container.stop() };
}

/**
 * `describe` when a server is reachable, with a `connect()` that returns one shared client (and
 * starts the container on first use); otherwise a loud skip: a warning and the reason in the name.
 */
export function describeWithKurrent(
  title: string,
  body: (connect: () => Promise<KurrentDBClient>) => void,
): void {
  const target = kurrentTarget;
  if (target.kind === 'skip') {
    console.warn(`SKIPPED: ${title}: ${target.reason}`);
    describe.skip(`${title} [skipped: ${target.reason}]`, () => body(() => never()));
    return;
  }
  let client: Promise<KurrentDBClient> | undefined;
  let stopContainer: (() => Promise<unknown>) | undefined;
  const connect = () =>
    (client ??= (async () => {
      if (target.kind === 'url') return createKurrentClient(target.url);
      const started = await startContainer();
      stopContainer = started.stop;
      return createKurrentClient(started.url);
    })());
  const where =
    target.kind === 'url' ? `KURRENTDB_URL=${target.url}` : `testcontainers ${KURRENTDB_IMAGE}`;
  describe(`${title} (${where})`, () => {
    afterAll(async () => {
      await (await client)?.dispose();
      await stopContainer?.();
    });
    body(connect);
  });
}

const never = (): Promise<never> => Promise.reject(new Error('no KurrentDB server: suite skipped'));
