import type { StoredRecord } from './envelope.ts';
import { CURRENT_SCHEMA_VERSION, MemoryRecord, type RecordType } from './record-types.ts';

/**
 * Old schema versions are upcast on read, never rewritten in the log. An upcaster takes the data
 * of version v and returns the data of version v + 1.
 */
type Upcaster = (data: unknown) => unknown;
const upcasters: Partial<Record<RecordType, Record<number, Upcaster>>> = {};

export class RecordDecodeError extends Error {
  readonly code = 'record_decode_failed';
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message);
  }
}

export type DecodedRecord = MemoryRecord & { meta: Omit<StoredRecord, 'type' | 'data'> };

export function isKnownRecordType(type: string): type is RecordType {
  return Object.hasOwn(CURRENT_SCHEMA_VERSION, type);
}

/**
 * Validate and upcast a stored record. Unknown types (written by a newer version) and erased
 * records return null.
 */
export function decodeRecord(stored: StoredRecord): DecodedRecord | null {
  // An erased record holds nothing to apply (ADR 0046); its erasure's record says what it counted.
  if (stored.erased) return null;
  if (!isKnownRecordType(stored.type)) return null;
  const target = CURRENT_SCHEMA_VERSION[stored.type];
  let version = stored.metadata.schemaVersion;
  let data = stored.data;
  if (version > target) {
    throw new RecordDecodeError(
      `${stored.type} v${version} is newer than this build understands (v${target})`,
      stored.position,
    );
  }
  while (version < target) {
    const up = upcasters[stored.type]?.[version];
    if (!up) {
      throw new RecordDecodeError(`no upcaster for ${stored.type} v${version}`, stored.position);
    }
    data = up(data);
    version += 1;
  }
  const parsed = MemoryRecord.safeParse({ type: stored.type, data });
  if (!parsed.success) {
    throw new RecordDecodeError(
      `${stored.type} at position ${stored.position} is invalid: ${parsed.error.message}`,
      stored.position,
    );
  }
  const { type: _t, data: _d, ...meta } = stored;
  return { ...parsed.data, meta };
}
