import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MISSING,
  NEXT_STRATEGIES,
  VERDICTS,
  normaliseAssessment,
  type AssessmentInput,
} from './assessment.ts';

// §16 "Assessment": the batch holds event:a and event:b.
const batch = new Set(['event:a', 'event:b']);
const assess = (input: AssessmentInput) => normaliseAssessment(input, batch);

describe('normaliseAssessment: §16 Assessment vectors (MM-GATE-5)', () => {
  it('verdict `maybe` → partial', () => {
    expect(assess({ verdict: 'maybe', next_strategy: 'search_raw' }).verdict).toBe('partial');
  });

  it('sufficient, [event:a], answer → sufficient; missing ""', () => {
    const out = assess({
      verdict: 'sufficient',
      evidence_refs: ['event:a'],
      next_strategy: 'answer',
      missing: 'the date',
    });
    expect(out).toMatchObject({
      verdict: 'sufficient',
      evidenceRefs: ['event:a'],
      nextStrategy: 'answer',
      missing: '',
    });
  });

  it('sufficient, [], answer → partial, search_events; default missing', () => {
    expect(assess({ verdict: 'sufficient', evidence_refs: [], next_strategy: 'answer' })).toEqual({
      verdict: 'partial',
      evidenceRefs: [],
      rejectedEvidenceRefs: [],
      fit: '',
      missing: DEFAULT_MISSING,
      nextStrategy: 'search_events',
    });
  });

  it('sufficient, [event:a], search_raw → partial, search_raw', () => {
    const out = assess({
      verdict: 'sufficient',
      evidence_refs: ['event:a'],
      next_strategy: 'search_raw',
    });
    expect([out.verdict, out.nextStrategy]).toEqual(['partial', 'search_raw']);
  });

  it('partial, answer → partial, search_events', () => {
    const out = assess({ verdict: 'partial', evidence_refs: ['event:a'], next_strategy: 'answer' });
    expect([out.verdict, out.nextStrategy]).toEqual(['partial', 'search_events']);
  });

  it('wrong, [event:a], answer → wrong, search_events', () => {
    const out = assess({ verdict: 'wrong', evidence_refs: ['event:a'], next_strategy: 'answer' });
    expect([out.verdict, out.nextStrategy]).toEqual(['wrong', 'search_events']);
  });

  it('refs [event:a, event:a, "", 5, event:z] → accepted [event:a]; 1 duplicate, 2–3 invalid_ref, 4 not_in_batch', () => {
    const out = assess({ evidence_refs: ['event:a', 'event:a', '', 5, 'event:z'] });
    expect(out.evidenceRefs).toEqual(['event:a']);
    expect(out.rejectedEvidenceRefs.map((r) => [r.inputIndex, r.ref, r.reason])).toEqual([
      [1, 'event:a', 'duplicate'],
      [2, '', 'invalid_ref'],
      [3, 5, 'invalid_ref'],
      [4, 'event:z', 'not_in_batch'],
    ]);
    expect(out.rejectedEvidenceRefs.every((r) => r.detail.length > 0)).toBe(true);
  });

  it('9 distinct valid refs → 8 accepted; the 9th limit_exceeded', () => {
    const refs = Array.from({ length: 9 }, (_, i) => `event:e${i}`);
    const out = normaliseAssessment({ evidence_refs: refs }, new Set(refs));
    expect(out.evidenceRefs).toEqual(refs.slice(0, 8));
    expect(out.rejectedEvidenceRefs).toEqual([
      expect.objectContaining({ inputIndex: 8, ref: 'event:e8', reason: 'limit_exceeded' }),
    ]);
  });

  it('strategy `think` → search_events', () => {
    expect(assess({ verdict: 'partial', next_strategy: 'think' }).nextStrategy).toBe(
      'search_events',
    );
  });
});

describe('normaliseAssessment: texts and odd input', () => {
  it('collapses whitespace and cuts fit and missing to 160 code points', () => {
    const out = assess({ fit: '  the  school\n\ttalk  ', missing: '中'.repeat(200) });
    expect(out.fit).toBe('the school talk');
    expect(Array.from(out.missing)).toHaveLength(160);
  });

  it('replaces a blank missing with the default when not sufficient', () => {
    expect(assess({ verdict: 'wrong', missing: ' \n ' }).missing).toBe(DEFAULT_MISSING);
  });

  it('trims accepted refs and rejects a non-array evidence_refs as invalid_ref', () => {
    expect(assess({ evidence_refs: ['  event:b '] }).evidenceRefs).toEqual(['event:b']);
    expect(assess({ evidence_refs: 'event:a' }).rejectedEvidenceRefs).toEqual([
      expect.objectContaining({ inputIndex: 0, reason: 'invalid_ref' }),
    ]);
  });
});

describe('normaliseAssessment properties', () => {
  const anyRef = fc.oneof(
    fc.constantFrom('event:a', 'event:b', 'event:z', '', ' event:a '),
    fc.anything(),
  );
  const input = fc.record(
    {
      verdict: fc.oneof(fc.constantFrom(...VERDICTS), fc.anything()),
      evidence_refs: fc.oneof(fc.array(anyRef, { maxLength: 12 }), fc.anything()),
      fit: fc.anything(),
      missing: fc.oneof(fc.string(), fc.anything()),
      next_strategy: fc.oneof(fc.constantFrom(...NEXT_STRATEGIES), fc.anything()),
    },
    { requiredKeys: [] },
  );

  it('never returns sufficient without an accepted ref and strategy answer', () => {
    fc.assert(
      fc.property(input, (raw) => {
        const out = assess(raw);
        if (out.verdict === 'sufficient') {
          expect(out.evidenceRefs.length).toBeGreaterThan(0);
          expect(out.nextStrategy).toBe('answer');
          expect(out.evidenceRefs.every((r) => batch.has(r))).toBe(true);
        } else {
          expect(out.nextStrategy).not.toBe('answer');
          expect(out.missing).not.toBe('');
        }
        expect(out.evidenceRefs.length).toBeLessThanOrEqual(8);
      }),
    );
  });
});
