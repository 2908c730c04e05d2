import { RecordMetadata, spaceKey, type SpaceRef, type StoredRecord } from '@stratagate/domain';
import type { KafkaMessage, Message } from 'kafkajs';
import { z } from 'zod';

/**
 * Wire format of one record on the topic. The value is the StoredRecord as JSON (position, space
 * version and log time included), so every copy of a record (see the ADR on re-produced records)
 * carries the same identity and a consumer needs nothing but the message. The key is the memory
 * space, so a space's records share a partition; headers repeat what tools (kcat) want to filter on.
 */
export const KAFKA_FORMAT = '1';
export const HEADERS = {
  format: 'stratagate-format',
  recordId: 'stratagate-record-id',
  type: 'stratagate-type',
  spaceVersion: 'stratagate-space-version',
} as const;

const StoredRecordWire = z.object({
  type: z.string().min(1),
  data: z.unknown(),
  metadata: RecordMetadata.loose(),
  position: z.number().int().positive(),
  spaceVersion: z.number().int().positive(),
  recordedAt: z.string().min(1),
});

export const spaceMessageKey = (space: SpaceRef): string => spaceKey(space);

export function encodeRecord(record: StoredRecord, partition?: number): Message {
  return {
    key: spaceMessageKey(record.metadata),
    value: JSON.stringify({
      type: record.type,
      data: record.data ?? null,
      metadata: record.metadata,
      position: record.position,
      spaceVersion: record.spaceVersion,
      recordedAt: record.recordedAt,
    }),
    headers: {
      [HEADERS.format]: KAFKA_FORMAT,
      [HEADERS.recordId]: record.metadata.recordId,
      [HEADERS.type]: record.type,
      [HEADERS.spaceVersion]: String(record.spaceVersion),
    },
    ...(partition === undefined ? {} : { partition }),
  };
}

/** A message on a StrataGate topic that is not a record of this format: a bug, never skipped. */
export class KafkaRecordFormatError extends Error {
  readonly code = 'kafka_record_format';
  constructor(topic: string, partition: number, offset: string, reason: string) {
    super(`message ${topic}[${partition}]@${offset} is not a StrataGate record: ${reason}`);
    this.name = 'KafkaRecordFormatError';
  }
}

export function decodeRecord(
  topic: string,
  partition: number,
  message: KafkaMessage,
): StoredRecord {
  const fail = (reason: string) =>
    new KafkaRecordFormatError(topic, partition, message.offset, reason);
  const format = message.headers?.[HEADERS.format]?.toString();
  if (format !== KAFKA_FORMAT) throw fail(`format header is ${format ?? 'missing'}`);
  if (!message.value) throw fail('empty value');
  let parsed: unknown;
  try {
    parsed = JSON.parse(message.value.toString('utf8'));
  } catch (error) {
    throw fail(`value is not JSON (${String(error)})`);
  }
  const checked = StoredRecordWire.safeParse(parsed);
  if (!checked.success) throw fail(checked.error.message);
  // The parsed JSON itself, not zod's copy: fields a newer writer added survive the round trip.
  return parsed as StoredRecord;
}
