import { randomUUID } from 'node:crypto';
import net from 'node:net';
import type { ISocketFactory, Kafka, KafkaConfig } from 'kafkajs';
import { describe } from 'vitest';
import { createKafkaClient, parseKafkaBrokers } from './kafka-client.ts';

/** Test helpers of the Kafka adapter (not exported from the package). */

export const kafkaBrokers = parseKafkaBrokers(process.env.KAFKA_BROKERS);

const SKIP_REASON =
  'KAFKA_BROKERS is not set; start a broker, e.g. `scripts/kafka-mock.sh /tmp/kafka.env && . /tmp/kafka.env`';

/** `describe` when a broker is configured; otherwise a loud skip: a warning and the reason in the name. */
export function describeWithKafka(title: string, body: () => void): void {
  if (kafkaBrokers.length > 0) {
    describe(`${title} (KAFKA_BROKERS=${kafkaBrokers.join(',')})`, body);
    return;
  }
  console.warn(`SKIPPED: ${title}: ${SKIP_REASON}`);
  describe.skip(`${title} [skipped: ${SKIP_REASON}]`, body);
}

/** kafkajs stays silent in tests; failures surface through the code under test. */
export function testKafka(
  clientId: string,
  config: Omit<KafkaConfig, 'brokers' | 'clientId' | 'logLevel' | 'logCreator'> = {},
): Kafka {
  return createKafkaClient({ brokers: kafkaBrokers, clientId, logLevel: 'nothing', config });
}

/** librdkafka's mock cluster has no DeleteTopics: every test writes to a topic of its own. */
export const freshTopic = (label: string): string => `sg-test-${label}-${randomUUID().slice(0, 8)}`;

/**
 * A socket factory whose connections the test can cut, refusing new ones until healed: what a
 * frozen or partitioned consumer process looks like to the brokers (no heartbeat, no LeaveGroup).
 */
export function severableNetwork(): {
  socketFactory: ISocketFactory;
  sever(): void;
  heal(): void;
} {
  const sockets = new Set<net.Socket>();
  let severed = false;
  const socketFactory: ISocketFactory = ({ host, port, onConnect }) => {
    if (severed) {
      const refused = new net.Socket();
      setImmediate(() =>
        refused.destroy(
          Object.assign(new Error(`connect ECONNREFUSED ${host}:${port} (severed by the test)`), {
            code: 'ECONNREFUSED',
          }),
        ),
      );
      return refused;
    }
    const socket = net.connect({ host, port }, onConnect);
    socket.setKeepAlive(true, 60_000);
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    return socket;
  };
  return {
    socketFactory,
    sever() {
      severed = true;
      // With an error, as a reset connection: kafkajs listens for 'error' and 'end', not 'close'.
      for (const socket of sockets) {
        socket.destroy(
          Object.assign(new Error('connection reset (severed by the test)'), {
            code: 'ECONNRESET',
          }),
        );
      }
    },
    heal() {
      severed = false;
    },
  };
}

/** Polls `condition` until it holds; fails with `what` after `timeoutMs`. */
export async function waitFor(
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
