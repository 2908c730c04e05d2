import { describe, expect, it } from 'vitest';
import {
  reinforcementTargets,
  validateAdoption,
  type AdoptionBatch,
  type ReinforceableStatus,
} from './adoption.ts';

// §16: the batch holds event:a and event:b; its sufficient assessment accepted only event:a.
const batch: AdoptionBatch = {
  id: 'batch_1',
  status: 'unresolved',
  refs: new Set(['event:a', 'event:b', 'raw:blk_1:msg_1:0']),
  acceptedRefs: new Set(['event:a']),
};

describe('validateAdoption (MM-GATE-7/8)', () => {
  it('adopting event:b when only event:a was accepted → not_adopted', () => {
    const out = validateAdoption({ refs: ['event:b'], batch });
    expect(out).toMatchObject({
      ok: false,
      error: 'invalid_refs',
      batchId: 'batch_1',
      batchStatus: 'unresolved',
      invalidRefs: [{ inputIndex: 0, ref: 'event:b', reason: 'not_adopted' }],
    });
  });

  it('[] → accepted', () => {
    expect(validateAdoption({ refs: [], batch })).toEqual({
      ok: true,
      batchId: 'batch_1',
      evidenceRefs: [],
      duplicateEvidenceRefs: [],
    });
  });

  it('[] is accepted even when no assessment was sufficient', () => {
    const out = validateAdoption({ refs: [], batch: { ...batch, acceptedRefs: new Set() } });
    expect(out.ok).toBe(true);
  });

  it('trims refs and reports duplicates without failing', () => {
    const out = validateAdoption({ refs: [' event:a', 'event:a ', 'event:a'], batch });
    expect(out).toEqual({
      ok: true,
      batchId: 'batch_1',
      evidenceRefs: ['event:a'],
      duplicateEvidenceRefs: ['event:a'],
    });
  });

  it('rejects the whole call on any failure, listing every invalid ref', () => {
    const out = validateAdoption({ refs: ['event:a', '  ', 7, 'event:z', 'event:b'], batch });
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(out.invalidRefs.map((r) => [r.inputIndex, r.reason])).toEqual([
      [1, 'invalid_ref'],
      [2, 'invalid_ref'],
      [3, 'not_in_batch'],
      [4, 'not_adopted'],
    ]);
  });

  it('a recorded batch is not adopted again', () => {
    const out = validateAdoption({ refs: [], batch: { ...batch, status: 'recorded' } });
    expect(out).toMatchObject({ ok: false, error: 'batch_recorded', batchStatus: 'recorded' });
  });
});

describe('reinforcementTargets (MM-WGT-3/5)', () => {
  const statuses: Record<string, ReinforceableStatus> = {
    e1: 'active',
    e2: 'superseded',
    gone: 'forgotten',
    old: 'archived',
    p1: 'active',
    p2: 'active',
    p3: 'active',
    p4: 'active',
    p5: 'active',
    p6: 'active',
    p7: 'active',
  };
  const lookups = {
    eventStatus: (id: string) => statuses[id],
    graphNodeProvenance: (id: string) =>
      ({
        node_1: ['gone', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7'],
        node_2: ['e1', 'p1'],
      })[id],
  };

  it('[e1, e1] reinforces e1 once', () => {
    expect(reinforcementTargets(['event:e1', 'event:e1'], lookups)).toEqual(['e1']);
  });

  it('skips missing, forgotten and archived events but keeps superseded ones', () => {
    const refs = ['event:missing', 'event:gone', 'event:old', 'event:e2'];
    expect(reinforcementTargets(refs, lookups)).toEqual(['e2']);
  });

  it('a graph node reinforces at most 6 visible provenance events', () => {
    expect(reinforcementTargets(['graph-node:node_1:expanded'], lookups)).toEqual([
      'p1',
      'p2',
      'p3',
      'p4',
      'p5',
      'p6',
    ]);
  });

  it('counts an event once across event and graph refs; raw, block and unknown refs add nothing', () => {
    const refs = [
      'event:e1',
      'graph-node:node_2',
      'raw:blk_1:msg_1:0',
      'block:blk_1:level:3',
      'graph-node:node_unknown',
      'nonsense',
    ];
    expect(reinforcementTargets(refs, lookups)).toEqual(['e1', 'p1']);
  });
});
