import type { NewRecord, SpaceRef } from '@stratagate/domain';

/** The append itself is malformed (caller bug): retrying it can never succeed. */
export class InvalidAppendError extends Error {
  readonly code = 'invalid_append';
  constructor(message: string) {
    super(message);
    this.name = 'InvalidAppendError';
  }
}

/**
 * Checks every adapter makes before touching storage: each record belongs to the target space
 * (a record filed under the wrong tenant would leak across tenants), and no idempotency key repeats
 * inside one append (it could never be stored, and "duplicate of itself" has no sensible answer).
 */
export function assertAppendable(space: SpaceRef, records: readonly NewRecord[]): void {
  const keys = new Set<string>();
  records.forEach((record, index) => {
    const { tenantId, spaceId, idempotencyKey } = record.metadata;
    if (tenantId !== space.tenantId || spaceId !== space.spaceId) {
      throw new InvalidAppendError(
        `record ${index} (${record.metadata.recordId}) belongs to ${tenantId}/${spaceId}, ` +
          `not to the target space ${space.tenantId}/${space.spaceId}`,
      );
    }
    if (idempotencyKey === undefined) return;
    if (keys.has(idempotencyKey)) {
      throw new InvalidAppendError(
        `idempotency key "${idempotencyKey}" appears more than once in one append (record ${index})`,
      );
    }
    keys.add(idempotencyKey);
  });
}

/** The idempotency keys of an append, in record order. */
export const idempotencyKeys = (records: readonly NewRecord[]): string[] =>
  records.flatMap((r) =>
    r.metadata.idempotencyKey === undefined ? [] : [r.metadata.idempotencyKey],
  );
