import { randomUUID } from 'node:crypto';
import {
  CURRENT_SCHEMA_VERSION,
  type MemoryRecord,
  type NewRecord,
  type SpaceRef,
} from '@stratagate/domain';
import { traceparentOf } from '@stratagate/telemetry';

export interface RecordContext {
  occurredAt: string;
  threadId?: string | undefined;
  idempotencyKey?: string | undefined;
  causationId?: string | undefined;
  correlationId?: string | undefined;
  /** W3C trace context; default: the span active now (the request, the consolidation job). */
  traceparent?: string | undefined;
}

/**
 * Wraps a decided record in its envelope: fresh record id, current schema version, space, and
 * the trace context the record was decided in, so projectors and jobs continue that trace.
 */
export function newRecord(space: SpaceRef, record: MemoryRecord, ctx: RecordContext): NewRecord {
  const threadId =
    'threadId' in record.data && typeof record.data.threadId === 'string'
      ? record.data.threadId
      : ctx.threadId;
  const optional = {
    threadId,
    idempotencyKey: ctx.idempotencyKey,
    causationId: ctx.causationId,
    correlationId: ctx.correlationId,
    traceparent: ctx.traceparent ?? traceparentOf(),
  };
  return {
    type: record.type,
    data: record.data,
    metadata: {
      recordId: randomUUID(),
      schemaVersion: CURRENT_SCHEMA_VERSION[record.type],
      tenantId: space.tenantId,
      spaceId: space.spaceId,
      occurredAt: ctx.occurredAt,
      ...Object.fromEntries(Object.entries(optional).filter(([, v]) => v !== undefined)),
    },
  };
}
