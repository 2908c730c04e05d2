import type {
  AllStreamResolvedEvent,
  AppendResult,
  AppendStreamState,
  Direction,
  EventData,
  KurrentDBClient,
  PrefixesFilter,
  ReadPosition,
  ReadRevision,
  ResolvedEvent,
} from '@kurrent/kurrentdb-client';

/**
 * What the log uses of `@kurrent/kurrentdb-client`'s KurrentDBClient. A KurrentDBClient is one;
 * the narrow shape lets specs drive the log with an in-memory model of the client
 * (kurrent.model.ts), since no server runs on the development machines.
 */
export interface KurrentStreamsClient {
  appendToStream(
    streamName: string,
    events: EventData[],
    options?: { streamState?: AppendStreamState; deadline?: number },
  ): Promise<AppendResult>;
  readStream(
    streamName: string,
    options?: {
      fromRevision?: ReadRevision;
      direction?: Direction;
      maxCount?: number | bigint;
      requiresLeader?: boolean;
      deadline?: number;
    },
  ): AsyncIterable<ResolvedEvent>;
  readAll(options?: {
    fromPosition?: ReadPosition;
    direction?: Direction;
    maxCount?: number | bigint;
    filter?: PrefixesFilter;
    requiresLeader?: boolean;
    deadline?: number;
  }): AsyncIterable<AllStreamResolvedEvent>;
  dispose(): Promise<void>;
}

/**
 * A KurrentDBClient for a connection string (`kurrentdb://host:2113?tls=false`, or
 * `esdb://…` for EventStoreDB). Loads the client (and its native bridge) only when called, so
 * deployments that never use KurrentDB never load it. The caller disposes it (`client.dispose()`)
 * or hands it to createKurrentLog with `ownsClient: true`.
 */
export async function createKurrentClient(connectionString: string): Promise<KurrentDBClient> {
  const { KurrentDBClient: Client } = await import('@kurrent/kurrentdb-client');
  return Client.connectionString(connectionString);
}
