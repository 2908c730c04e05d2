import { describe, expect, it } from 'vitest';
import {
  RECEIPT_CONFLICT_MESSAGE,
  receiptFingerprint,
  receiptOutcome,
  validReceiptId,
} from './receipt.ts';

describe('adoption receipts (MM-WGT-6)', () => {
  const audit = { batchId: 'batch_1', evidenceRefs: ['event:e1'], turn: 3, sessionId: 's' };
  const recorded = receiptFingerprint(['e1'], audit);

  it('R + [e1] twice → no-op, whatever the key order or repeats', () => {
    const again = receiptFingerprint(['e1', 'e1'], {
      sessionId: 's',
      turn: 3,
      evidenceRefs: ['event:e1'],
      batchId: 'batch_1',
      note: undefined,
    });
    expect(receiptOutcome(recorded, again)).toBe('no-op');
  });

  it('R + [e2] → conflict, as does different audit metadata', () => {
    expect(receiptOutcome(recorded, receiptFingerprint(['e2'], audit))).toBe('conflict');
    expect(receiptOutcome(recorded, receiptFingerprint(['e1'], { ...audit, turn: 4 }))).toBe(
      'conflict',
    );
    expect(RECEIPT_CONFLICT_MESSAGE).toBe(
      'already recorded with different memory IDs or audit metadata',
    );
  });

  it('an unseen receipt is first', () => {
    expect(receiptOutcome(undefined, recorded)).toBe('first');
  });

  it('a blank receipt is invalid', () => {
    expect([
      validReceiptId(''),
      validReceiptId('  '),
      validReceiptId(3),
      validReceiptId('R'),
    ]).toEqual([false, false, false, true]);
  });
});
