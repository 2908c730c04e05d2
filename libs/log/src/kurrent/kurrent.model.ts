import type {
  AllStreamResolvedEvent,
  AppendResult,
  AppendStreamState,
  EventData,
  Position,
  ResolvedEvent,
} from '@kurrent/kurrentdb-client';
import type { KurrentStreamsClient } from './kurrent-client.ts';

/**
 * Test support, not exported: an in-memory model of the part of KurrentDB the log uses, behind the
 * client's surface. It is our reading of the server's documented behaviour, not the server:
 * - a stream's events get revisions 0, 1, …; every event gets a commit position (= prepare) in
 *   one global order, with gaps; a multi-event append becomes visible all at once;
 * - append with an exact expected state (`no_stream` or a revision): if the stream is there, it is
 *   written; if the events already at the following revisions carry exactly these ids, it is an
 *   idempotent no-op answering success with the revision of the last such event; otherwise
 *   wrong-expected-version. With `any`: a no-op if these ids are the stream's latest events;
 * - errors carry the client's `type` (`stream-not-found`, `wrong-expected-version` with
 *   `actualState`, `maximum-append-size-exceeded`);
 * - reads: readStream from a revision (forwards, or backwards from `end`); readAll forwards from a
 *   position (inclusive) or backwards from `end`, filtered on stream-name prefixes.
 * Every call yields to the event loop first, so concurrent calls interleave.
 */

interface ModelEvent {
  streamId: string;
  id: string;
  type: string;
  revision: bigint;
  position: bigint;
  created: Date;
  data: string;
  metadata: string | undefined;
}

export interface KurrentModelOptions {
  /** Bytes of data + metadata one append may hold (the server's MaxAppendSize). Default 1 MiB. */
  maxAppendSize?: number;
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

class ModelError extends Error {
  constructor(
    readonly type: string,
    message: string,
    details: Record<string, unknown> = {},
  ) {
    super(message);
    Object.assign(this, details);
  }
}

export interface KurrentModel extends KurrentStreamsClient {
  /** The raw events of a stream, as stored (ids, revisions). */
  rawEvents(streamName: string): readonly { id: string; revision: bigint; type: string }[];
  /** The next append is written, then its answer is lost (the caller sees `unavailable`). */
  loseNextAnswer(): void;
  /** Appends answered as idempotent no-ops (their event ids were already there). */
  readonly idempotentAnswers: number;
  readonly disposed: boolean;
}

export function createKurrentModel(options: KurrentModelOptions = {}): KurrentModel {
  const maxAppendSize = options.maxAppendSize ?? 1024 * 1024;
  const streams = new Map<string, ModelEvent[]>();
  const all: ModelEvent[] = [];
  let nextPosition = 1000n;
  let loseAnswer = false;
  let disposed = false;
  let idempotentAnswers = 0;

  const toRecorded = (e: ModelEvent) => ({
    streamId: e.streamId,
    id: e.id,
    revision: e.revision,
    type: e.type,
    created: new Date(e.created),
    data: JSON.parse(e.data) as unknown,
    metadata: e.metadata === undefined ? undefined : (JSON.parse(e.metadata) as unknown),
    isJson: true as const,
    position: { commit: e.position, prepare: e.position } satisfies Position,
  });

  const idsMatch = (stored: readonly ModelEvent[], from: number, events: readonly EventData[]) =>
    from >= 0 &&
    from + events.length <= stored.length &&
    events.every((e, i) => stored[from + i]?.id === e.id);

  return {
    get disposed() {
      return disposed;
    },
    get idempotentAnswers() {
      return idempotentAnswers;
    },

    rawEvents: (streamName) => streams.get(streamName) ?? [],

    loseNextAnswer() {
      loseAnswer = true;
    },

    async appendToStream(
      streamName: string,
      events: EventData[],
      { streamState = 'any' }: { streamState?: AppendStreamState } = {},
    ): Promise<AppendResult> {
      await tick();
      const stored = streams.get(streamName) ?? [];
      const last = stored.length - 1; // -1: no stream
      const position = (e: ModelEvent | undefined) =>
        e ? { commit: e.position, prepare: e.position } : undefined;
      const idempotent = (from: number): AppendResult => {
        idempotentAnswers += 1;
        return {
          success: true,
          nextExpectedRevision: BigInt(from + events.length - 1),
          position: position(stored[from + events.length - 1]),
        };
      };
      const wrong = () =>
        new ModelError('wrong-expected-version', 'wrong expected version', {
          streamName,
          expectedState: streamState,
          actualState: last < 0 ? 'no_stream' : BigInt(last),
        });

      if (streamState === 'any' || streamState === 'stream_exists') {
        if (streamState === 'stream_exists' && last < 0) throw wrong();
        const from = stored.length - events.length;
        if (events.length > 0 && idsMatch(stored, from, events)) return idempotent(from);
      } else {
        const expected = streamState === 'no_stream' ? -1 : Number(streamState);
        if (expected !== last) {
          if (expected < last && idsMatch(stored, expected + 1, events)) {
            return idempotent(expected + 1);
          }
          throw wrong();
        }
      }

      const size = events.reduce(
        (n, e) =>
          n +
          Buffer.byteLength(JSON.stringify(e.data)) +
          Buffer.byteLength(JSON.stringify(e.metadata ?? '')),
        0,
      );
      if (size > maxAppendSize) {
        throw new ModelError('maximum-append-size-exceeded', `append of ${size} bytes`, {
          maxAppendSize,
        });
      }

      // One synchronous step: readers see all of the append or none of it.
      const created = new Date();
      const written = events.map((e, i): ModelEvent => {
        const data = JSON.stringify(e.data);
        nextPosition += BigInt(100 + data.length); // byte offsets: increasing, with gaps
        return {
          streamId: streamName,
          id: e.id,
          type: e.type,
          revision: BigInt(stored.length + i),
          position: nextPosition,
          created,
          data,
          metadata: e.metadata === undefined ? undefined : JSON.stringify(e.metadata),
        };
      });
      streams.set(streamName, [...stored, ...written]);
      all.push(...written);
      if (loseAnswer) {
        loseAnswer = false;
        throw new ModelError('unavailable', 'connection lost before the answer arrived');
      }
      const lastWritten = written[written.length - 1];
      return {
        success: true,
        nextExpectedRevision: BigInt(stored.length + written.length - 1),
        position: position(lastWritten),
      };
    },

    readStream(streamName, { fromRevision = 'start', direction = 'forwards', maxCount } = {}) {
      return (async function* (): AsyncGenerator<ResolvedEvent> {
        await tick();
        const stored = streams.get(streamName);
        if (!stored) throw new ModelError('stream-not-found', `${streamName} not found`);
        const count = Number(maxCount ?? Number.MAX_SAFE_INTEGER);
        let picked: ModelEvent[];
        if (direction === 'forwards') {
          const from =
            fromRevision === 'start'
              ? 0
              : fromRevision === 'end'
                ? stored.length
                : Number(fromRevision);
          picked = stored.slice(from, from + count);
        } else {
          const from =
            fromRevision === 'end'
              ? stored.length - 1
              : fromRevision === 'start'
                ? 0
                : Number(fromRevision);
          picked = stored.slice(Math.max(0, from - count + 1), from + 1).reverse();
        }
        for (const e of picked) {
          yield { event: toRecorded(e) } as ResolvedEvent;
          await tick();
        }
      })();
    },

    readAll({ fromPosition = 'start', direction = 'forwards', maxCount, filter } = {}) {
      return (async function* (): AsyncGenerator<AllStreamResolvedEvent> {
        await tick();
        const prefixes = filter?.prefixes ?? [];
        const visible = all.filter(
          (e) => prefixes.length === 0 || prefixes.some((p) => e.streamId.startsWith(p)),
        );
        const count = Number(maxCount ?? Number.MAX_SAFE_INTEGER);
        let picked: ModelEvent[];
        if (direction === 'forwards') {
          const from =
            fromPosition === 'start'
              ? -1n
              : fromPosition === 'end'
                ? nextPosition + 1n
                : fromPosition.commit;
          picked = visible.filter((e) => e.position >= from).slice(0, count);
        } else {
          const from =
            fromPosition === 'end'
              ? nextPosition + 1n
              : fromPosition === 'start'
                ? -1n
                : fromPosition.commit;
          picked = visible
            .filter((e) => e.position <= from)
            .reverse()
            .slice(0, count);
        }
        for (const e of picked) {
          yield { event: toRecorded(e) } as AllStreamResolvedEvent;
          await tick();
        }
      })();
    },

    async dispose() {
      disposed = true;
    },
  };
}
