import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { SpaceRef } from '@stratagate/domain';
import type { MessageLog } from '@stratagate/log';
import type { ModelPort } from '@stratagate/model';
import {
  readModelDb,
  type AnyDb,
  type PostingCache,
  type ReadModelTables,
} from '@stratagate/store';
import type { ProfileWriter, SpaceWriterService } from '@stratagate/writer';

/**
 * How far the read model has got, as the process that serves queries can tell (ADR 0009: the
 * live read-model schema can switch while the node runs).
 */
export interface ProjectionProgress {
  /** The live read-model schema now (a cached lookup). */
  liveSchema(): Promise<string>;
  /**
   * A log position such that every record of the space at or below it is applied to `schema`
   * (clients wait for their own writes against it).
   */
  projectedPosition(schema: string, space: SpaceRef): Promise<number>;
  /** The matching head: the position of the space's last record (0 for an empty space). */
  logPosition(space: SpaceRef): Promise<number>;
  /**
   * The position of the space's last record at or below `position` (0 if none): how far a space
   * is applied, told in its own records only, whatever other spaces have written.
   */
  spacePositionAtOrBelow(space: SpaceRef, position: number): Promise<number>;
}

/** The remember operation's settings (MM-REM-1: hosts may disable it). */
export interface RememberSettings {
  enabled: boolean;
  /** The optional MM-REM-4 decider; without `decideRemember`, ambiguity marks a conflict. */
  model: ModelPort | null;
  deciderTimeoutMs?: number;
}

/** What the query service is built from, once per process (atproto's `AppContext`). */
export interface QueryServices {
  db: AnyDb;
  log: MessageLog;
  /** The process's space writer: the gate's records go through the same per-space lock as turns. */
  writer: SpaceWriterService;
  /** The process's profile writer (ADR 0050): tenant profiles, each a stream of its own. */
  profiles: ProfileWriter;
  now: () => Date;
  projection: ProjectionProgress;
  remember: RememberSettings;
  /** The process's posting cache (ADR 0018); none: every search reads its postings whole. */
  postingCache?: PostingCache;
}

/**
 * One request's context: the services and the read-model schema the request reads, pinned when
 * it starts so that it never mixes two versions; a wait for projection moves it to the live one.
 */
export interface QueryContext extends QueryServices {
  schema: string;
}

/** A request's context, its read-model schema the live one now. */
export async function queryContext(services: QueryServices): Promise<QueryContext> {
  return { ...services, schema: await services.projection.liveSchema() };
}

/** The read model the request reads, as the typed handle every query function takes. */
export function readModel(ctx: Pick<QueryContext, 'db' | 'schema'>): Kysely<ReadModelTables> {
  return readModelDb(ctx.db, ctx.schema);
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the query plugin when the request starts. */
    queryContext?: QueryContext;
  }
}

/** The request's query context (the query plugin's hook set it). */
export function contextOf(request: FastifyRequest): QueryContext {
  if (!request.queryContext) throw new Error('query route outside the query plugin');
  return request.queryContext;
}
