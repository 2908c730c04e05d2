import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { freePort } from './processes.ts';

/**
 * Vitest global setup of the integration project: when KAFKA_BROKERS is unset, testcontainers is
 * installed (it is not a dependency of this repository, as for KurrentDB) and Docker answers,
 * starts a real single-node broker (Redpanda, the image infra/docker-compose.yml runs) and sets
 * KAFKA_BROKERS for the test workers, so the Kafka suites run against a real broker: CreateTopics,
 * DescribeConfigs and the idempotent producer included. Otherwise it does nothing and the Kafka
 * suites use KAFKA_BROKERS (CI: the kcat mock cluster) or skip loudly.
 */
export const REDPANDA_IMAGE = 'docker.redpanda.com/redpandadata/redpanda:v24.3.6';

interface StartedContainer {
  stop(): Promise<unknown>;
}
interface ContainerBuilder {
  withExposedPorts(...ports: { container: number; host: number }[]): ContainerBuilder;
  withCommand(command: string[]): ContainerBuilder;
  withWaitStrategy(strategy: unknown): ContainerBuilder;
  start(): Promise<StartedContainer>;
}
interface Testcontainers {
  GenericContainer: new (image: string) => ContainerBuilder;
  Wait: { forLogMessage(message: string | RegExp): unknown };
}

function why(): string | null {
  if (process.env.KAFKA_BROKERS?.trim()) return 'KAFKA_BROKERS is set';
  try {
    createRequire(import.meta.url).resolve('testcontainers');
  } catch {
    return 'testcontainers is not installed';
  }
  const docker = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], {
    timeout: 5_000,
    encoding: 'utf8',
  });
  if (docker.status !== 0) return 'Docker does not answer';
  return null;
}

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  const reason = why();
  if (reason) return undefined;
  const name = 'testcontainers';
  const tc = (await import(name)) as Testcontainers;
  // The broker advertises the host port, so it is chosen before the container starts.
  const port = await freePort();
  const container = await new tc.GenericContainer(REDPANDA_IMAGE)
    .withExposedPorts({ container: 9092, host: port })
    .withCommand([
      'redpanda',
      'start',
      '--mode',
      'dev-container',
      '--smp',
      '1',
      '--kafka-addr',
      '0.0.0.0:9092',
      '--advertise-kafka-addr',
      `127.0.0.1:${port}`,
    ])
    .withWaitStrategy(tc.Wait.forLogMessage(/Successfully started Redpanda/))
    .start();
  process.env.KAFKA_BROKERS = `127.0.0.1:${port}`;
  console.warn(
    `Kafka suites: a Redpanda container (testcontainers) at ${process.env.KAFKA_BROKERS}`,
  );
  return async () => {
    await container.stop();
  };
}
