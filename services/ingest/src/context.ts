import type { MessageLog } from '@stratagate/log';
import type { SpaceWriterService } from '@stratagate/writer';
import type { ProjectionBackpressure } from './backpressure.ts';

/** What the ingest service is built from, once per process. */
export interface IngestContext {
  log: MessageLog;
  writer: SpaceWriterService;
  now: () => Date;
  /**
   * Where the projector runs in this process: a turn waits while its projection lag is over the
   * bound (ADR 0031).
   */
  backpressure?: ProjectionBackpressure;
}
