import type { JSONEventData } from '@kurrent/kurrentdb-client';
import type { NewRecord, RecordMetadata, StoredRecord } from '@stratagate/domain';
import { describe, expect, it } from 'vitest';
import { makeRecord } from '../contract/fixtures.ts';
import { recordEventId, STRATAGATE_EVENT_ID_NAMESPACE, uuidV5 } from './kurrent-ids.ts';
import {
  fromRecordedEvent,
  KURRENT_RECORD_FORMAT,
  KurrentRecordFormatError,
  toEventData,
  type RecordedEventLike,
} from './kurrent-records.ts';
import {
  positionNumber,
  readPositionAfter,
  revisionAfterVersion,
  streamStateForVersion,
  versionOfRevision,
  versionOfStreamState,
} from './kurrent-revisions.ts';
import { spaceStreamName } from './kurrent-streams.ts';

const space = { tenantId: 'acme', spaceId: 'support' };
const meta = (m: Partial<RecordMetadata> = {}): RecordMetadata => ({
  recordId: 'r-1',
  schemaVersion: 1,
  tenantId: space.tenantId,
  spaceId: space.spaceId,
  occurredAt: '2024-01-01T00:00:00Z',
  ...m,
});

describe('kurrentdb event ids', () => {
  it('computes RFC 9562 version-5 UUIDs (known vector)', () => {
    // uuid.uuid5(uuid.NAMESPACE_DNS, 'python.org') in Python's documentation.
    expect(uuidV5('6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'python.org')).toBe(
      '886313e1-3b8a-5372-9b90-0c9aee199e5d',
    );
    expect(() => uuidV5('not-a-uuid', 'x')).toThrow(/UUID/);
  });

  it('derives the same id for the same idempotency key, whatever the record', () => {
    const a = recordEventId(meta({ recordId: 'r-1', idempotencyKey: 'turn-1' }));
    const b = recordEventId(meta({ recordId: 'r-2', idempotencyKey: 'turn-1', threadId: 't' }));
    expect(a).toBe(b);
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a).toBe(
      uuidV5(
        STRATAGATE_EVENT_ID_NAMESPACE,
        JSON.stringify(['idempotency-key', 'acme', 'support', 'turn-1']),
      ),
    );
  });

  it('keeps ids apart across keys, spaces, tenants, and keys vs record ids', () => {
    const ids = [
      recordEventId(meta({ idempotencyKey: 'turn-1' })),
      recordEventId(meta({ idempotencyKey: 'turn-2' })),
      recordEventId(meta({ idempotencyKey: 'turn-1', spaceId: 'other' })),
      recordEventId(meta({ idempotencyKey: 'turn-1', tenantId: 'other' })),
      // The same string as a record id and as a key, and a separator inside a part.
      recordEventId(meta({ recordId: 'turn-1' })),
      recordEventId(meta({ idempotencyKey: 'b', tenantId: 'acme","a' })),
      recordEventId(meta({ idempotencyKey: 'a","b', tenantId: 'acme' })),
    ];
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('derives records without a key from their record id (a retry is the same event)', () => {
    expect(recordEventId(meta({ recordId: 'r-9' }))).toBe(recordEventId(meta({ recordId: 'r-9' })));
    expect(recordEventId(meta({ recordId: 'r-9' }))).not.toBe(
      recordEventId(meta({ recordId: 'r-8' })),
    );
  });
});

describe('kurrentdb revisions and positions', () => {
  it('maps space version n to revision n - 1 and 0 to "no stream"', () => {
    expect(streamStateForVersion(0)).toBe('no_stream');
    expect(streamStateForVersion(1)).toBe(0n);
    expect(streamStateForVersion(42)).toBe(41n);
    expect(versionOfRevision(0n)).toBe(1);
    expect(versionOfRevision(41n)).toBe(42);
    expect(versionOfStreamState('no_stream')).toBe(0);
    expect(versionOfStreamState(4n)).toBe(5);
    for (const v of [0, 1, 2, 1000, 2 ** 40]) {
      const state = streamStateForVersion(v);
      expect(versionOfStreamState(state)).toBe(v);
    }
    expect(() => streamStateForVersion(-1)).toThrow(RangeError);
    expect(() => streamStateForVersion(1.5)).toThrow(RangeError);
    expect(() => versionOfRevision(-1n)).toThrow(RangeError);
  });

  it('reads the records after version v from revision v', () => {
    expect(revisionAfterVersion(0)).toBe(0n);
    expect(revisionAfterVersion(5)).toBe(5n);
    expect(revisionAfterVersion(-3)).toBe(0n);
  });

  it('uses the commit position as the position, refusing what one number cannot say', () => {
    expect(positionNumber({ commit: 4096n, prepare: 4096n })).toBe(4096);
    expect(() => positionNumber({ commit: 4096n, prepare: 4000n })).toThrow(/prepare/);
    expect(() => positionNumber(undefined)).toThrow(/22\.6/);
    expect(() => positionNumber({ commit: 2n ** 53n, prepare: 2n ** 53n })).toThrow(RangeError);
    expect(readPositionAfter(0)).toBe('start');
    expect(readPositionAfter(-1)).toBe('start');
    expect(readPositionAfter(4096)).toEqual({ commit: 4096n, prepare: 4096n });
  });
});

/**
 * What the client does to an event on the way in and out: append sends JSON.stringify(data) and
 * JSON.stringify(metadata); reads JSON.parse both (convertRustRecord) and add revision, creation
 * time and position.
 */
function throughTheServer(
  event: JSONEventData,
  streamId: string,
  at: { revision: bigint; position: bigint; created: Date },
): RecordedEventLike {
  return {
    streamId,
    id: event.id,
    revision: at.revision,
    type: event.type,
    created: at.created,
    data: JSON.parse(JSON.stringify(event.data)) as unknown,
    metadata: JSON.parse(JSON.stringify(event.metadata)) as unknown,
    isJson: event.contentType === 'application/json',
    position: { commit: at.position, prepare: at.position },
  };
}

describe('kurrentdb record serialisation', () => {
  const stream = spaceStreamName('sg', space);
  const at = { revision: 6n, position: 123_456n, created: new Date('2026-03-04T05:06:07.891Z') };

  it('a StoredRecord survives the trip: every field, unicode, caller offsets', () => {
    const metadata = meta({
      recordId: 'rec-ß',
      schemaVersion: 3,
      threadId: 'スレッド-1',
      occurredAt: '2023-06-09T13:56:00+08:00',
      causationId: 'cause-✓',
      correlationId: 'corr-1',
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      idempotencyKey: 'turn-“quoted”-€',
    });
    const data = {
      text: '今天下午两点 meeting 🚀 — "quotes" \\ backslash\nnew line',
      nested: { list: [1, 2.5, -3, null, true, 'ü'], empty: {} },
    };
    const record: NewRecord = { type: 'TurnRecorded', data, metadata };
    const event = toEventData(record);
    expect(event).toMatchObject({
      id: recordEventId(metadata),
      contentType: 'application/json',
      type: 'TurnRecorded',
      data,
      metadata: {
        format: KURRENT_RECORD_FORMAT,
        record: metadata,
        $correlationId: 'corr-1',
        $causationId: 'cause-✓',
      },
    });

    const stored = fromRecordedEvent(throughTheServer(event, stream, at), 'sg');
    const expected: StoredRecord = {
      type: 'TurnRecorded',
      data,
      metadata,
      position: 123_456,
      spaceVersion: 7,
      recordedAt: '2026-03-04T05:06:07.891Z',
    };
    expect(stored).toStrictEqual(expected);
  });

  it('round-trips data that is not an object: strings, numbers, null, arrays, missing', () => {
    for (const data of ['text', 42, null, [1, 'a'], true]) {
      const event = toEventData(makeRecord(space, data));
      expect(fromRecordedEvent(throughTheServer(event, stream, at), 'sg').data).toStrictEqual(data);
    }
    const missing = toEventData({ ...makeRecord(space), data: undefined });
    expect(fromRecordedEvent(throughTheServer(missing, stream, at), 'sg').data).toBeNull();
  });

  it('keeps metadata fields a newer writer added', () => {
    const metadata = { ...meta(), addedLater: { x: 1 } } as RecordMetadata;
    const event = toEventData({ type: 'T', data: {}, metadata });
    expect(fromRecordedEvent(throughTheServer(event, stream, at), 'sg').metadata).toStrictEqual(
      metadata,
    );
  });

  it('refuses events that are not records of this format, or sit in another space stream', () => {
    const event = throughTheServer(toEventData(makeRecord(space)), stream, at);
    const refuse = (e: RecordedEventLike, prefix = 'sg') =>
      expect(() => fromRecordedEvent(e, prefix)).toThrow(KurrentRecordFormatError);
    refuse({ ...event, isJson: false });
    refuse({ ...event, metadata: undefined });
    refuse({ ...event, metadata: { format: 'other/1', record: meta() } });
    refuse({ ...event, metadata: { format: KURRENT_RECORD_FORMAT, record: { recordId: 'x' } } });
    refuse({ ...event, streamId: spaceStreamName('sg', { tenantId: 'acme', spaceId: 'other' }) });
    refuse(event, 'sgt');
    expect(() => fromRecordedEvent({ ...event, position: undefined }, 'sg')).toThrow(/position/);
  });
});
