import { describe, expect, it } from 'vitest';
import type { ReinforcementLookups } from './adoption.ts';
import {
  adoptionFingerprint,
  decideAdoption,
  decideAssessment,
  decideEventStateChange,
  decideOpenBatch,
  type BatchState,
} from './gate-decisions.ts';

const EVT = 'event:evt_a';
const NODE = 'graph-node:node_n';
const RAW = 'raw:blk_1:msg_1:0';

function batch(overrides: Partial<BatchState> = {}): BatchState {
  return {
    id: 'batch_2',
    status: 'unresolved',
    refs: [EVT, NODE, RAW],
    acceptedRefs: [],
    ...overrides,
  };
}

const lookups: ReinforcementLookups = {
  eventStatus: (id) =>
    ({ evt_a: 'active', evt_b: 'superseded', evt_gone: 'forgotten' })[id] as
      'active' | 'superseded' | 'forgotten' | undefined,
  graphNodeProvenance: (id) => (id === 'node_n' ? ['evt_b', 'evt_gone', 'evt_a'] : undefined),
};

describe('opening a batch (MM-GATE-2)', () => {
  it('given 3 batches opened in the space, when a search opens one, then it is batch_4 with the refs shown', () => {
    const [record] = decideOpenBatch(
      { batchCount: 3 },
      {
        threadId: 'session-1',
        operation: 'search_events',
        query: 'pnpm',
        refs: [EVT],
        retrievedEventIds: ['evt_a'],
      },
    );
    expect(record).toEqual({
      type: 'EvidenceBatchOpened',
      data: {
        batchId: 'batch_4',
        threadId: 'session-1',
        operation: 'search_events',
        query: 'pnpm',
        refs: [EVT],
        retrievedEventIds: ['evt_a'],
      },
    });
  });
});

describe('assessing a batch (MM-GATE-3..6)', () => {
  it('given an unresolved batch, when the agent says sufficient with a ref of it and answer, then the assessment is recorded as sufficient', () => {
    const decision = decideAssessment(batch(), {
      verdict: 'sufficient',
      evidence_refs: [` ${EVT} `, 'event:evt_elsewhere'],
      fit: 'states   it',
      next_strategy: 'answer',
    });
    expect(decision.ok).toBe(true);
    if (!decision.ok) return;
    const [record] = decision.records;
    expect(record.type).toBe('EvidenceAssessed');
    expect(record.data).toMatchObject({
      batchId: 'batch_2',
      verdict: 'sufficient',
      evidenceRefs: [EVT],
      fit: 'states it',
      missing: '',
      nextStrategy: 'answer',
    });
    expect(record.data.rejectedEvidenceRefs).toEqual([
      expect.objectContaining({ inputIndex: 1, reason: 'not_in_batch' }),
    ]);
  });

  it('given an unresolved batch, when sufficient comes without an accepted ref, then it is recorded as partial', () => {
    const decision = decideAssessment(batch(), {
      verdict: 'sufficient',
      evidence_refs: [],
      next_strategy: 'answer',
    });
    expect(decision.ok && decision.records[0].data.verdict).toBe('partial');
    expect(decision.ok && decision.records[0].data.nextStrategy).toBe('search_events');
  });

  it('given a recorded batch, when it is assessed, then nothing is recorded: batch_recorded', () => {
    expect(decideAssessment(batch({ status: 'recorded' }), { verdict: 'wrong' })).toEqual({
      ok: false,
      error: 'batch_recorded',
    });
  });
});

describe('adopting evidence (MM-GATE-7..9, MM-WGT-3/5)', () => {
  const cmd = { receiptId: 'session-1:tool:call_1', threadId: 'session-1' };

  it('given refs accepted by a sufficient assessment, when they are adopted, then the events they cite are reinforced at the turn now', () => {
    const decision = decideAdoption(
      { turnCounter: 17 },
      batch({ acceptedRefs: [EVT, NODE] }),
      { ...cmd, refs: [EVT, NODE, EVT] },
      lookups,
    );
    expect(decision.ok).toBe(true);
    if (!decision.ok) return;
    expect(decision.records[0]).toEqual({
      type: 'MemoryAdopted',
      data: {
        batchId: 'batch_2',
        receiptId: cmd.receiptId,
        threadId: 'session-1',
        turn: 17,
        evidenceRefs: [EVT, NODE],
        duplicateEvidenceRefs: [EVT],
        // The node's visible provenance, the forgotten event skipped; evt_a only once.
        eventIds: ['evt_a', 'evt_b'],
        fingerprint: adoptionFingerprint('batch_2', [EVT, NODE, EVT]),
      },
    });
  });

  it('given a ref the assessment did not accept, when it is adopted, then the whole adoption is rejected', () => {
    const decision = decideAdoption(
      { turnCounter: 1 },
      batch({ acceptedRefs: [EVT] }),
      { ...cmd, refs: [EVT, RAW, ''] },
      lookups,
    );
    expect(decision).toMatchObject({
      ok: false,
      error: 'invalid_refs',
      invalidRefs: [
        { inputIndex: 1, reason: 'not_adopted' },
        { inputIndex: 2, reason: 'invalid_ref' },
      ],
    });
  });

  it('given any batch, when [] is adopted, then the batch closes and nothing is reinforced', () => {
    const decision = decideAdoption({ turnCounter: 3 }, batch(), { ...cmd, refs: [] }, lookups);
    expect(decision.ok && decision.records[0].data.eventIds).toEqual([]);
  });

  it('given a recorded batch, when a new receipt adopts from it, then batch_recorded', () => {
    const decision = decideAdoption(
      { turnCounter: 3 },
      batch({ status: 'recorded' }),
      { ...cmd, refs: [] },
      lookups,
    );
    expect(decision).toMatchObject({ ok: false, error: 'batch_recorded' });
  });

  it('the fingerprint is the batch and the set of trimmed refs: order and repeats do not change it', () => {
    expect(adoptionFingerprint('batch_1', [EVT, ` ${NODE}`, EVT])).toBe(
      adoptionFingerprint('batch_1', [NODE, EVT]),
    );
    expect(adoptionFingerprint('batch_1', [EVT])).not.toBe(adoptionFingerprint('batch_2', [EVT]));
  });
});

describe('changing an event state (MM-EVT-19)', () => {
  it.each([
    ['pin', 'pinned'],
    ['unpin', 'unpinned'],
    ['forget', 'forgotten'],
    ['restore', 'restored'],
  ] as const)('when the request is %s, then the record says %s', (change, recorded) => {
    expect(decideEventStateChange({ eventId: 'evt_a', change })).toEqual([
      { type: 'MemoryEventStateChanged', data: { eventId: 'evt_a', change: recorded } },
    ]);
  });
});
