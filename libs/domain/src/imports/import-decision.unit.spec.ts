import { describe, expect, it } from 'vitest';
import {
  clampImportTopK,
  fingerprintDuplicate,
  importFingerprint,
  normaliseImportDecision,
  offlineImportDecision,
} from './import-decision.ts';

const TOP_K = ['evt_a', 'evt_b'];

describe('fingerprint shortcut (MM-IMP-5)', () => {
  const fp = importFingerprint('Project X uses pnpm', 'It switched from npm.');

  it('given a live event with the same normalised title and summary, then IGNORE at 1, no model', () => {
    const live = [
      {
        id: 'evt_a',
        fingerprint: importFingerprint(' project x  USES pnpm', 'It switched from npm.'),
      },
    ];
    expect(fingerprintDuplicate(fp, new Set(), live)).toEqual({
      action: 'IGNORE',
      existingEventIds: ['evt_a'],
      mergedCandidate: null,
      reason: 'the same memory already exists',
      confidence: 1,
      requiresConfirmation: false,
    });
  });

  it('given an earlier candidate of the import with the same fingerprint, then IGNORE at 1', () => {
    expect(fingerprintDuplicate(fp, new Set([fp]), [])).toMatchObject({
      action: 'IGNORE',
      confidence: 1,
      requiresConfirmation: false,
    });
  });

  it('given nothing the same, then no shortcut', () => {
    expect(
      fingerprintDuplicate(fp, new Set(['other']), [{ id: 'evt_b', fingerprint: 'x' }]),
    ).toBeNull();
  });
});

describe('decision normalisation (MM-IMP-6)', () => {
  it('drops ids outside the top K and keeps the action', () => {
    expect(
      normaliseImportDecision(
        { action: 'SUPERSEDE', existingEventIds: ['evt_a', 'evt_z', 'evt_a', 7], confidence: 0.9 },
        TOP_K,
        false,
      ),
    ).toMatchObject({ action: 'SUPERSEDE', existingEventIds: ['evt_a'], confidence: 0.9 });
  });

  it('turns an unknown action into IGNORE', () => {
    expect(
      normaliseImportDecision({ action: 'DELETE', confidence: 0.95 }, TOP_K, false),
    ).toMatchObject({
      action: 'IGNORE',
      reason: 'unknown action',
    });
  });

  it('downgrades MERGE, SUPERSEDE or CONFLICT with no valid target to IGNORE at 0.5', () => {
    for (const action of ['MERGE', 'SUPERSEDE', 'CONFLICT']) {
      const d = normaliseImportDecision(
        { action, existingEventIds: ['evt_elsewhere'], confidence: 0.99 },
        TOP_K,
        false,
      );
      expect(d).toMatchObject({ action: 'IGNORE', confidence: 0.5, requiresConfirmation: true });
      expect(d.reason).toMatch(/^safely downgraded/);
    }
  });

  it('gives a missing confidence 0.5 and cuts the reason to 500', () => {
    const d = normaliseImportDecision({ action: 'add', reason: 'r'.repeat(600) }, TOP_K, false);
    expect(d).toMatchObject({ action: 'ADD', confidence: 0.5, requiresConfirmation: true });
    expect(d.reason).toHaveLength(500);
  });

  it('needs confirmation below 0.85: 0.84 does, 0.85 does not', () => {
    expect(
      normaliseImportDecision({ action: 'ADD', confidence: 0.84 }, TOP_K, false)
        .requiresConfirmation,
    ).toBe(true);
    expect(
      normaliseImportDecision({ action: 'ADD', confidence: 0.85 }, TOP_K, false)
        .requiresConfirmation,
    ).toBe(false);
  });

  it('needs confirmation for a document recovered from malformed JSON, even at 0.99', () => {
    expect(
      normaliseImportDecision({ action: 'ADD', confidence: 0.99 }, TOP_K, true)
        .requiresConfirmation,
    ).toBe(true);
  });

  it('keeps a merged card only with a title and a summary', () => {
    expect(
      normaliseImportDecision(
        {
          action: 'MERGE',
          existingEventIds: ['evt_b'],
          confidence: 0.9,
          mergedCandidate: { title: 'T', summary: 'S', tags: ['a', 3] },
        },
        TOP_K,
        false,
      ).mergedCandidate,
    ).toEqual({ title: 'T', summary: 'S', tags: ['a'] });
    expect(
      normaliseImportDecision(
        { action: 'MERGE', existingEventIds: ['evt_b'], mergedCandidate: { title: 'T' } },
        TOP_K,
        false,
      ).mergedCandidate,
    ).toBeNull();
  });

  it('clamps K to 1–20, 5 by default', () => {
    expect([
      clampImportTopK(undefined),
      clampImportTopK(0),
      clampImportTopK(50),
      clampImportTopK(7),
    ]).toEqual([5, 1, 20, 7]);
  });
});

describe('offline decider', () => {
  const existing = [
    {
      id: 'evt_npm',
      title: 'Project X uses npm',
      summary: 'Project X installs its packages with npm.',
    },
    {
      id: 'evt_tea',
      title: 'Likes green tea',
      summary: 'The user drinks green tea every morning.',
    },
  ];

  it('given nothing about the same thing, then ADD, sure enough to apply', () => {
    const raw = offlineImportDecision(
      { title: 'Harbin is home', summary: 'Born and raised in Harbin, China.', tags: [] },
      existing,
    );
    const d = normaliseImportDecision(
      raw,
      existing.map((e) => e.id),
      false,
    );
    expect(d).toMatchObject({ action: 'ADD', requiresConfirmation: false, existingEventIds: [] });
  });

  it('given nearly the same memory, then IGNORE naming it', () => {
    const raw = offlineImportDecision(
      {
        title: 'Project X uses npm',
        summary: 'Project X installs its packages with npm today.',
        tags: [],
      },
      existing,
    );
    expect(normaliseImportDecision(raw, ['evt_npm', 'evt_tea'], false)).toMatchObject({
      action: 'IGNORE',
      existingEventIds: ['evt_npm'],
      requiresConfirmation: false,
    });
  });

  it('given an overlap that says something changed, then SUPERSEDE, to be confirmed', () => {
    const raw = offlineImportDecision(
      {
        title: 'Project X switched to pnpm',
        summary: 'Project X now installs its packages with pnpm.',
        tags: [],
      },
      existing,
    );
    expect(normaliseImportDecision(raw, ['evt_npm', 'evt_tea'], false)).toMatchObject({
      action: 'SUPERSEDE',
      existingEventIds: ['evt_npm'],
      requiresConfirmation: true,
    });
  });

  it('given an overlap with no sign of change, then CONFLICT, to be confirmed', () => {
    const raw = offlineImportDecision(
      {
        title: 'Package manager of Project X',
        summary: 'Project X installs its packages with yarn, says the build guide.',
        tags: [],
      },
      existing,
    );
    expect(normaliseImportDecision(raw, ['evt_npm', 'evt_tea'], false)).toMatchObject({
      action: 'CONFLICT',
      existingEventIds: ['evt_npm'],
      confidence: 0.5,
      requiresConfirmation: true,
    });
  });

  it('decides the same on every run', () => {
    const c = {
      title: 'Project X switched to pnpm',
      summary: 'Project X now installs its packages with pnpm.',
      tags: [],
    };
    expect(offlineImportDecision(c, existing)).toEqual(
      offlineImportDecision(c, [...existing].reverse()),
    );
  });
});
