import { SpaceRef } from '@stratagate/domain';

/**
 * Stream names of the KurrentDB log: one stream per memory space,
 * `<prefix>-<tenant>-<space>`, e.g. `sg-acme-support%2Dbot`. Each part is percent-encoded (UTF-8,
 * uppercase hex) except `A-Z a-z 0-9 _ .`, so the name is ASCII, holds exactly two `-` (the parts
 * contain none) and decodes back to the space: two spaces never share a stream. KurrentDB's
 * `$by_category` projection splits at the first `-`, so every stream of a log is in the category
 * `<prefix>`; `$all` reads filter on the prefix `<prefix>-`.
 */
export const DEFAULT_STREAM_PREFIX = 'sg';

/** Letters, digits and `_`, starting with a letter: no `$` (system streams), no `-`, no `%`. */
const PREFIX = /^[A-Za-z][A-Za-z0-9_]{0,31}$/;
const MAX_PREFIX_LENGTH = 32;

/** The domain's bounds on a space (SpaceRef): tenant ≤ 64, space ≤ 128 UTF-16 code units. */
const MAX_TENANT_LENGTH = 64;
const MAX_SPACE_LENGTH = 128;
/** One UTF-16 code unit encodes to at most 9 characters (a BMP character: 3 UTF-8 bytes as %XX). */
const MAX_ENCODED_PER_UNIT = 9;

/** The longest name a valid space can get (with a 32-character prefix): 1,762 ASCII characters. */
export const MAX_SPACE_STREAM_NAME_LENGTH =
  MAX_PREFIX_LENGTH +
  1 +
  MAX_TENANT_LENGTH * MAX_ENCODED_PER_UNIT +
  1 +
  MAX_SPACE_LENGTH * MAX_ENCODED_PER_UNIT;

export class InvalidStreamPrefixError extends Error {
  readonly code = 'invalid_stream_prefix';
  constructor(prefix: string) {
    super(
      `KurrentDB stream prefix "${prefix}" is invalid: 1–32 letters, digits or "_", starting with a letter`,
    );
    this.name = 'InvalidStreamPrefixError';
  }
}

export function assertStreamPrefix(prefix: string): void {
  if (!PREFIX.test(prefix)) throw new InvalidStreamPrefixError(prefix);
}

/** A lone surrogate has no UTF-8 form: encoding it would merge distinct strings. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
export const isWellFormed = (value: string): boolean => !LONE_SURROGATE.test(value);

/** encodeURIComponent leaves `-!~*'()` as they are; this encoding escapes them too. */
const LEFT_BY_URI_ENCODING = /[-!~*'()]/g;
const ENCODED = /^(?:[A-Za-z0-9_.]|%[0-9A-F]{2})+$/;

/** Percent-encodes one part of a stream name. The input must be well-formed (no lone surrogate). */
export function encodeStreamPart(value: string): string {
  if (!isWellFormed(value)) throw new Error('cannot encode a string with a lone surrogate');
  return encodeURIComponent(value).replace(
    LEFT_BY_URI_ENCODING,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  );
}

/** Inverse of encodeStreamPart; null for anything encodeStreamPart cannot have produced. */
export function decodeStreamPart(encoded: string): string | null {
  if (!ENCODED.test(encoded)) return null;
  let decoded: string;
  try {
    decoded = decodeURIComponent(encoded);
  } catch {
    return null; // %XX sequences that are not UTF-8
  }
  // Canonical form only, so one space has exactly one name.
  return encodeStreamPart(decoded) === encoded ? decoded : null;
}

/** Why a space cannot name a stream (outside the domain's SpaceRef bounds, lone surrogates). */
export function spaceNameProblem(space: SpaceRef): string | null {
  const checked = SpaceRef.safeParse(space);
  if (!checked.success) {
    return `tenantId must be 1–${MAX_TENANT_LENGTH} and spaceId 1–${MAX_SPACE_LENGTH} characters`;
  }
  if (!isWellFormed(space.tenantId) || !isWellFormed(space.spaceId)) {
    return 'tenantId and spaceId must not hold lone UTF-16 surrogates';
  }
  return null;
}

/** The stream of a space; throws if the space is outside the domain's bounds. */
export function spaceStreamName(prefix: string, space: SpaceRef): string {
  assertStreamPrefix(prefix);
  const problem = spaceNameProblem(space);
  if (problem) {
    throw new Error(`space ${space.tenantId}/${space.spaceId} cannot name a stream: ${problem}`);
  }
  return `${prefix}-${encodeStreamPart(space.tenantId)}-${encodeStreamPart(space.spaceId)}`;
}

/** The space a stream of this prefix belongs to; null for any other stream. */
export function parseSpaceStreamName(prefix: string, streamName: string): SpaceRef | null {
  const parts = streamName.split('-');
  if (parts.length !== 3 || parts[0] !== prefix) return null;
  const tenantId = decodeStreamPart(parts[1] ?? '');
  const spaceId = decodeStreamPart(parts[2] ?? '');
  if (tenantId === null || spaceId === null) return null;
  const space = { tenantId, spaceId };
  return spaceNameProblem(space) === null ? space : null;
}

/** What `$all` reads filter on: every stream of the log, nothing of a log whose prefix extends it. */
export const streamNamePrefix = (prefix: string): string => `${prefix}-`;
