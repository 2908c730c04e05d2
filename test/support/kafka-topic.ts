import { randomUUID } from 'node:crypto';
import type { Kafka } from 'kafkajs';

/** Every message on `topic` up to its end, keys and values, as lower-cased text. */
export async function topicText(kafka: Kafka, topic: string): Promise<string> {
  const admin = kafka.admin();
  await admin.connect();
  const ends = new Map(
    (await admin.fetchTopicOffsets(topic)).map((o) => [o.partition, Number(o.high)]),
  );
  await admin.disconnect();
  const consumer = kafka.consumer({
    groupId: `sg-erasure-read-${randomUUID()}`,
    sessionTimeout: 6000,
    heartbeatInterval: 1000,
  });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const read = new Map<number, number>();
  const parts: string[] = [];
  const done = () => [...ends].every(([p, end]) => (read.get(p) ?? 0) >= end);
  await new Promise<void>((resolve, reject) => {
    if (done()) resolve();
    consumer
      .run({
        eachMessage: async ({ partition, message }) => {
          parts.push(
            message.key?.toString('latin1') ?? '',
            message.value?.toString('latin1') ?? '',
          );
          read.set(partition, Number(message.offset) + 1);
          if (done()) resolve();
        },
      })
      .catch(reject);
  });
  await consumer.disconnect();
  return parts.join('\n').toLowerCase();
}
