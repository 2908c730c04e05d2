import { createHash } from 'node:crypto';
import type { RecordMetadata } from '@stratagate/domain';

/**
 * Event ids. KurrentDB deduplicates an append whose event ids equal the events already at the
 * expected revision (a retried or racing append becomes a no-op that answers success). So the id
 * of a record's event is derived, never random: from the idempotency key when the record has one
 * (two appends of one key are the same event), otherwise from the record id (a retry of the same
 * records is the same events). Both are scoped to the space, like the keys themselves.
 */

/** Namespace of StrataGate's event ids (fixed: changing it changes every id). */
export const STRATAGATE_EVENT_ID_NAMESPACE = 'b8da485e-7087-4a5f-992a-d8fdc2092da9';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** RFC 9562 (formerly 4122) version-5 UUID: SHA-1 of namespace bytes + UTF-8 name. */
export function uuidV5(namespace: string, name: string): string {
  if (!UUID.test(namespace)) throw new Error(`not a UUID: ${namespace}`);
  const bytes = createHash('sha1')
    .update(Buffer.from(namespace.replaceAll('-', ''), 'hex'))
    .update(name, 'utf8')
    .digest()
    .subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The event id of a record: by idempotency key if it has one, else by record id. */
export function recordEventId(metadata: RecordMetadata): string {
  const { tenantId, spaceId, idempotencyKey, recordId } = metadata;
  // JSON arrays keep the parts apart whatever characters they hold.
  const name =
    idempotencyKey === undefined
      ? JSON.stringify(['record', tenantId, spaceId, recordId])
      : JSON.stringify(['idempotency-key', tenantId, spaceId, idempotencyKey]);
  return uuidV5(STRATAGATE_EVENT_ID_NAMESPACE, name);
}
