import type {
  CurrentStreamState,
  NO_STREAM,
  Position,
  ReadPosition,
  START,
} from '@kurrent/kurrentdb-client';

/**
 * The port counts a space's records from version 1; KurrentDB counts a stream's events from
 * revision 0. Version n is revision n − 1; version 0 (an empty space) is "no stream".
 * The client's constants are repeated as literals so this module does not load the client.
 */
export const NO_STREAM_STATE: typeof NO_STREAM = 'no_stream';
export const START_POSITION: typeof START = 'start';

function assertVersion(version: number, what: string): void {
  if (!Number.isSafeInteger(version) || version < 0) {
    throw new RangeError(`${what} must be a non-negative integer, got ${version}`);
  }
}

/** The expected stream state that means "the space is at `version`". */
export function streamStateForVersion(version: number): typeof NO_STREAM | bigint {
  assertVersion(version, 'expectedVersion');
  return version === 0 ? NO_STREAM_STATE : BigInt(version - 1);
}

export function versionOfRevision(revision: bigint): number {
  if (revision < 0n || revision >= BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new RangeError(`stream revision ${revision} has no space version`);
  }
  return Number(revision) + 1;
}

/** The space version a stream state reports (as in a wrong-expected-version answer). */
export function versionOfStreamState(state: CurrentStreamState): number {
  return state === NO_STREAM_STATE ? 0 : versionOfRevision(state);
}

/** The first revision to read for the records after `afterVersion`: revision afterVersion. */
export function revisionAfterVersion(afterVersion: number): bigint {
  return BigInt(Math.max(0, Math.floor(afterVersion)));
}

/**
 * The port's position of an event: its commit position in the transaction log (`$all` order).
 * Events appended through gRPC have commit = prepare (they differ only for the legacy explicit
 * transactions this adapter never uses), so one number identifies the event; a pair that differs
 * cannot be represented and is refused loudly. Positions are byte offsets: they have gaps and stay
 * far below 2^53 (9 PB of log).
 */
export function positionNumber(position: Position | undefined): number {
  if (!position) {
    throw new Error(
      'KurrentDB returned an event without its log position (stream reads return it from server 22.6)',
    );
  }
  if (position.commit !== position.prepare) {
    throw new Error(
      `KurrentDB event at commit ${position.commit} has prepare position ${position.prepare}: ` +
        'not an event of a single append, cannot map it to one position',
    );
  }
  if (position.commit < 0n || position.commit > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new RangeError(`KurrentDB commit position ${position.commit} does not fit a number`);
  }
  return Number(position.commit);
}

/** Where a forward `$all` read starts for the events after `afterPosition` (inclusive there). */
export function readPositionAfter(afterPosition: number): ReadPosition {
  const at = Math.floor(afterPosition);
  if (!(at > 0)) return START_POSITION;
  if (!Number.isSafeInteger(at)) throw new RangeError(`position ${afterPosition} is out of range`);
  return { commit: BigInt(at), prepare: BigInt(at) };
}
