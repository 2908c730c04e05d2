export { createKurrentClient, type KurrentStreamsClient } from './kurrent-client.ts';
export {
  createKurrentLog,
  kurrentLogCapabilities,
  KurrentAppendContentionError,
  KurrentAppendOutcomeUnknownError,
  type KurrentLogOptions,
  type KurrentMessageLog,
} from './kurrent-log.ts';
export { recordEventId } from './kurrent-ids.ts';
export {
  KURRENT_RECORD_FORMAT,
  KurrentRecordFormatError,
  fromRecordedEvent as decodeKurrentEvent,
  toEventData as encodeKurrentEvent,
} from './kurrent-records.ts';
export {
  DEFAULT_STREAM_PREFIX as KURRENT_DEFAULT_STREAM_PREFIX,
  InvalidStreamPrefixError,
  parseSpaceStreamName,
  spaceStreamName,
} from './kurrent-streams.ts';
