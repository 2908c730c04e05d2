import { z } from 'zod';

/** A memory space belongs to exactly one tenant; every record and read-model row carries both. */
export const SpaceRef = z.object({
  tenantId: z.string().min(1).max(64),
  spaceId: z.string().min(1).max(128),
});
export type SpaceRef = z.infer<typeof SpaceRef>;

export const spaceKey = (s: SpaceRef): string => `${s.tenantId}/${s.spaceId}`;

/** Metadata every record carries, whatever its type. */
export const RecordMetadata = z.object({
  recordId: z.string().min(1),
  schemaVersion: z.number().int().positive(),
  tenantId: z.string().min(1),
  spaceId: z.string().min(1),
  threadId: z.string().min(1).optional(),
  /** Caller's time, ISO-8601 with the caller's offset kept (MM-GEN-1). */
  occurredAt: z.string().min(1),
  causationId: z.string().optional(),
  correlationId: z.string().optional(),
  /** W3C trace context, so a trace continues from the request into projectors. */
  traceparent: z.string().optional(),
  /** Client-supplied idempotency key (turn id, receipt id...): unique per space in the log. */
  idempotencyKey: z.string().min(1).max(200).optional(),
});
export type RecordMetadata = z.infer<typeof RecordMetadata>;

/** A record as handed to the log for appending. `data` is validated by the domain before. */
export interface NewRecord {
  type: string;
  data: unknown;
  metadata: RecordMetadata;
}

/** A record as the log returns it: position, per-space version and log time added. */
export interface StoredRecord extends NewRecord {
  /** Global position: increasing in commit-visible order; may have gaps. */
  position: number;
  /** Per-space version: 1, 2, 3... without gaps. */
  spaceVersion: number;
  /** Log time (ISO-8601 UTC). */
  recordedAt: string;
  /**
   * The record's content was erased (ADR 0046): its key is gone, `data` is null, and readers
   * skip it. Its place in the space's order and its metadata stay.
   */
  erased?: true;
}
