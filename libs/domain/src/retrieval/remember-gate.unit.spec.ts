import { describe, expect, it } from 'vitest';
import {
  clampTopK,
  rememberFingerprint,
  rememberGate,
  resolveAmbiguous,
  type RememberExisting,
} from './remember-gate.ts';
import { tokenize } from './tokenize.ts';

const existing = (id: string, title: string, summary: string): RememberExisting => ({
  id,
  tokens: tokenize(`${title} ${summary}`),
  fingerprint: rememberFingerprint(title, summary),
});
const candidate = (title: string, summary: string) => ({
  tokens: tokenize(`${title} ${summary}`),
  fingerprint: rememberFingerprint(title, summary),
});

const pnpm = existing(
  'evt_1',
  'Switched to pnpm',
  'The project switched from npm to pnpm for installs',
);
const lunch = existing('evt_2', 'Lunch', 'We had noodles for lunch on Friday');

describe('rememberGate (MM-REM-3)', () => {
  it('a duplicate → REINFORCED by fingerprint', () => {
    const out = rememberGate({
      candidate: candidate(
        ' switched  to PNPM',
        'The project switched from npm to pnpm for installs',
      ),
      live: [lunch, pnpm],
      searchHits: [],
    });
    expect(out).toEqual({ outcome: 'REINFORCED', eventId: 'evt_1', exact: true, containment: 1 });
  });

  it('a near-duplicate (containment ≥ 0.85) → REINFORCED', () => {
    const out = rememberGate({
      candidate: candidate('pnpm', 'The project switched from npm to pnpm'),
      live: [lunch, pnpm],
      searchHits: [],
    });
    expect(out).toMatchObject({ outcome: 'REINFORCED', eventId: 'evt_1', exact: false });
  });

  it('new content → ADDED with gate clear-new', () => {
    const out = rememberGate({
      candidate: candidate('Deploys', 'Deploys happen every Tuesday at noon'),
      live: [lunch, pnpm],
      searchHits: [pnpm, lunch],
    });
    expect(out).toEqual({ outcome: 'ADDED', gate: 'clear-new' });
  });

  it('search hits with containment ≥ 0.35 among the top K are ambiguous', () => {
    const c = candidate('Installs', 'The project now uses yarn for installs instead');
    const out = rememberGate({ candidate: c, live: [pnpm], searchHits: [lunch, pnpm] });
    expect(out).toMatchObject({ outcome: 'AMBIGUOUS', hits: [{ id: 'evt_1' }] });
    expect(
      rememberGate({ candidate: c, live: [pnpm], searchHits: [lunch, pnpm], topK: 1 }),
    ).toEqual({
      outcome: 'ADDED',
      gate: 'clear-new',
    });
  });

  it('K defaults to 5 and is clamped to 1–20', () => {
    expect([clampTopK(undefined), clampTopK(0), clampTopK(50), clampTopK(7)]).toEqual([
      5, 1, 20, 7,
    ]);
  });
});

describe('resolveAmbiguous (MM-REM-4)', () => {
  const matched = ['evt_1', 'evt_2'];

  it('ambiguous without a decider → CONFLICT_MARKED heuristic-conflict, linked to the matches', () => {
    expect(resolveAmbiguous(matched, null)).toEqual({
      outcome: 'CONFLICT_MARKED',
      reason: 'heuristic-conflict',
      conflictsWithEventIds: matched,
    });
  });

  it('SUPERSEDE at 0.92 → applied, with cap 0.1', () => {
    expect(
      resolveAmbiguous(matched, {
        ok: true,
        action: 'SUPERSEDE',
        targetIds: ['evt_1', 'evt_9'],
        confidence: 0.92,
      }),
    ).toEqual({
      outcome: 'APPLIED',
      action: 'SUPERSEDE',
      targetIds: ['evt_1'],
      confidence: 0.92,
      supersededCap: 0.1,
    });
  });

  it('MERGE at 0.6 → CONFLICT_MARKED, downgradedFrom MERGE', () => {
    expect(
      resolveAmbiguous(matched, {
        ok: true,
        action: 'MERGE',
        targetIds: ['evt_1'],
        confidence: 0.6,
      }),
    ).toMatchObject({
      outcome: 'CONFLICT_MARKED',
      downgradedFrom: 'MERGE',
    });
  });

  it('MERGE without a valid target, or with missing confidence (0.5) → downgraded', () => {
    const noTarget = resolveAmbiguous(matched, {
      ok: true,
      action: 'MERGE',
      targetIds: ['evt_9'],
      confidence: 0.99,
    });
    const noConfidence = resolveAmbiguous(matched, {
      ok: true,
      action: 'SUPERSEDE',
      targetIds: ['evt_2'],
    });
    expect(noTarget).toMatchObject({ outcome: 'CONFLICT_MARKED', downgradedFrom: 'MERGE' });
    expect(noConfidence).toMatchObject({ downgradedFrom: 'SUPERSEDE', confidence: 0.5 });
  });

  it('a decider error → decider-error', () => {
    expect(resolveAmbiguous(matched, { ok: false, error: 'timeout' })).toMatchObject({
      outcome: 'CONFLICT_MARKED',
      reason: 'decider-error',
    });
  });

  it('IGNORE → nothing written', () => {
    expect(resolveAmbiguous(matched, { ok: true, action: 'IGNORE' })).toEqual({
      outcome: 'IGNORED',
    });
  });

  it('KEEP_BOTH → conflict marked by the decider; an unknown action is a decider error', () => {
    expect(
      resolveAmbiguous(matched, { ok: true, action: 'keep_both', confidence: 0.9 }),
    ).toMatchObject({ outcome: 'CONFLICT_MARKED', reason: 'decider-conflict', confidence: 0.9 });
    expect(resolveAmbiguous(matched, { ok: true, action: 'DELETE_ALL' })).toMatchObject({
      outcome: 'CONFLICT_MARKED',
      reason: 'decider-error',
    });
  });
});
