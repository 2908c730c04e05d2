import type { JSONEventData, JSONType, Position } from '@kurrent/kurrentdb-client';
import { RecordMetadata, type NewRecord, type StoredRecord } from '@stratagate/domain';
import { z } from 'zod';
import { recordEventId } from './kurrent-ids.ts';
import { positionNumber, versionOfRevision } from './kurrent-revisions.ts';
import { spaceStreamName } from './kurrent-streams.ts';

/**
 * One record is one JSON event: event type = record type, event data = record data, event id
 * derived (kurrent-ids.ts), event metadata = the record's metadata in an envelope that names the
 * format. Position, space version and log time are not stored: they are the event's commit
 * position, revision + 1 and creation time, which the server assigns.
 * `$correlationId` / `$causationId` repeat the record's ids where KurrentDB's own projections
 * (`$by_correlation_id`) look for them; reading ignores them.
 */
export const KURRENT_RECORD_FORMAT = 'stratagate-record/1';

export interface RecordEventMetadata {
  format: typeof KURRENT_RECORD_FORMAT;
  record: RecordMetadata;
  $correlationId?: string;
  $causationId?: string;
}

/** The part of the client's RecordedEvent the decoder reads (what readStream and readAll yield). */
export interface RecordedEventLike {
  streamId: string;
  id: string;
  revision: bigint;
  type: string;
  created: Date;
  data: unknown;
  metadata: unknown;
  isJson: boolean;
  position?: Position | undefined;
}

export function toEventData(record: NewRecord): JSONEventData {
  const m = record.metadata;
  const metadata: RecordEventMetadata = {
    format: KURRENT_RECORD_FORMAT,
    record: m,
    ...(m.correlationId === undefined ? {} : { $correlationId: m.correlationId }),
    ...(m.causationId === undefined ? {} : { $causationId: m.causationId }),
  };
  return {
    id: recordEventId(m),
    contentType: 'application/json',
    type: record.type,
    // The client JSON-encodes whatever it is given; the type only names objects, arrays, strings.
    data: (record.data ?? null) as JSONType,
    metadata: metadata as unknown as JSONType,
  };
}

/** An event in a stream of the log that is not a record of this format: a bug, never skipped. */
export class KurrentRecordFormatError extends Error {
  readonly code = 'kurrent_record_format';
  constructor(streamId: string, revision: bigint, reason: string) {
    super(`event ${revision}@${streamId} is not a StrataGate record: ${reason}`);
    this.name = 'KurrentRecordFormatError';
  }
}

const Envelope = z.object({ format: z.literal(KURRENT_RECORD_FORMAT), record: z.unknown() });
const Metadata = RecordMetadata.loose();

/**
 * The stored record an event holds. Checks the format, the metadata, and that the event sits in
 * the stream of the space its metadata names (a record filed elsewhere would cross tenants).
 */
export function fromRecordedEvent(event: RecordedEventLike, prefix: string): StoredRecord {
  const fail = (reason: string) =>
    new KurrentRecordFormatError(event.streamId, event.revision, reason);
  if (!event.isJson) throw fail('not a JSON event');
  const envelope = Envelope.safeParse(event.metadata);
  if (!envelope.success) throw fail(`metadata is not a ${KURRENT_RECORD_FORMAT} envelope`);
  const metadata = Metadata.safeParse(envelope.data.record);
  if (!metadata.success) throw fail(`record metadata: ${metadata.error.message}`);
  // The parsed JSON itself, not zod's copy: fields a newer writer added survive the round trip.
  const recordMetadata = envelope.data.record as RecordMetadata;
  let home: string;
  try {
    home = spaceStreamName(prefix, recordMetadata);
  } catch (error) {
    throw fail(String(error));
  }
  if (home !== event.streamId) throw fail(`its metadata names the stream ${home}`);
  return {
    type: event.type,
    data: event.data,
    metadata: recordMetadata,
    position: positionNumber(event.position),
    spaceVersion: versionOfRevision(event.revision),
    recordedAt: event.created.toISOString(),
  };
}
