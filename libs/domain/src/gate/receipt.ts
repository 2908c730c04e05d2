/** MM-WGT-6: adoption receipts make retries safe across restarts and replays. */
export const RECEIPT_CONFLICT_MESSAGE =
  'already recorded with different memory IDs or audit metadata';

export type ReceiptOutcome = 'first' | 'no-op' | 'conflict';

/**
 * A canonical JSON string of what an adoption changed. Event ids are a set (order and repeats do
 * not change the effect); object keys are sorted and undefined members dropped so that the same
 * audit serialised by different code paths compares equal. Array order inside the audit is kept:
 * refs and citations are ordered by the agent and part of what was recorded.
 */
export function receiptFingerprint(eventIds: readonly string[], audit: unknown): string {
  const ids = [...new Set(eventIds)].sort();
  return JSON.stringify(canonical({ eventIds: ids, audit }));
}

/** `value` as JSON with object keys sorted and undefined members dropped: equal data, equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(canonical(value));
}

export function receiptOutcome(recorded: string | undefined, incoming: string): ReceiptOutcome {
  if (recorded === undefined) return 'first';
  return recorded === incoming ? 'no-op' : 'conflict';
}

/** A blank receipt would make every retry look new (MM-WGT-6), so it is a validation error. */
export function validReceiptId(receiptId: unknown): receiptId is string {
  return typeof receiptId === 'string' && receiptId.trim() !== '';
}

function canonical(value: unknown): unknown {
  // JSON.stringify writes undefined array members as null; doing it here keeps that explicit.
  if (Array.isArray(value)) {
    return value.map((item) => (item === undefined ? null : canonical(item)));
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries.map(([k, v]) => [k, canonical(v)]));
  }
  return value;
}
