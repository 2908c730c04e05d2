import { describe, expect, it } from 'vitest';
import type { MemoryRecord } from '../records/record-types.ts';
import { utcIso, utcMillis } from './instants.ts';
import { decideProfileEdit } from './profile-decisions.ts';
import {
  checkCompression,
  compressExtractively,
  maintenanceDue,
  maintenanceRetryAt,
} from './profile-maintenance.ts';
import {
  decideProfileMaintenance,
  type MaintenanceCommand,
} from './profile-maintenance-decision.ts';
import { evolveProfile, initialProfileState, type ProfileState } from './profile-state.ts';
import { emptyProfileValues, type ProfileField } from './profile-fields.ts';

const T0 = '2026-12-06T10:00:00.000Z';
const ms = (iso: string) => utcMillis(iso)!;
const HOUR = 3_600_000;

function fold(records: MemoryRecord[], state = initialProfileState('default')): ProfileState {
  return records.reduce((s, r) => evolveProfile(s, r, s.version + 1), state);
}
function withField(
  field: ProfileField,
  value: string,
  at = T0,
  state = initialProfileState('default'),
) {
  const d = decideProfileEdit(state, {
    field,
    value,
    source: 'settings',
    sourceMessageId: null,
    origin: null,
    changeId: `pchg_${state.revision + 1}`,
    at,
  });
  if (!d.ok) throw new Error(d.code);
  return fold(d.records, state);
}

describe('instants without Date', () => {
  it.each([
    '2026-12-06T10:00:00.000Z',
    '1970-01-01T00:00:00.000Z',
    '2024-02-29T23:59:59.999Z',
    '1999-12-31T00:00:00.000Z',
  ])('%s round-trips and agrees with Date', (iso) => {
    expect(utcMillis(iso)).toBe(Date.parse(iso));
    expect(utcIso(Date.parse(iso))).toBe(iso);
  });
  it('reads only UTC ISO', () => {
    expect(utcMillis('2026-12-06T10:00:00+08:00')).toBeNull();
    expect(utcMillis('2026-12-06T10:00Z')).toBe(Date.parse('2026-12-06T10:00:00Z'));
  });
});

describe('maintenanceDue (MM-PRO-6)', () => {
  it('an empty profile, or one with short fields only, is never due', () => {
    expect(maintenanceDue(initialProfileState('default'), ms(T0) + 48 * HOUR)).toBe(false);
    expect(maintenanceDue(withField('homeCity', 'Harbin'), ms(T0) + 48 * HOUR)).toBe(false);
  });

  it('is due 24 h after the first non-empty write, then 24 h after the last success', () => {
    const state = withField('persistentNotes', 'Likes tea.');
    expect(maintenanceDue(state, ms(T0) + 23 * HOUR)).toBe(false);
    expect(maintenanceDue(state, ms(T0) + 24 * HOUR)).toBe(true);
    const done = fold(
      decideProfileMaintenance(state, {
        basedOnRevision: 1,
        result: { ok: true, fields: [], model: null },
        newChangeId: () => 'x',
        at: utcIso(ms(T0) + 24 * HOUR),
        atMs: ms(T0) + 24 * HOUR,
      }),
      state,
    );
    expect(maintenanceDue(done, ms(T0) + 47 * HOUR)).toBe(false);
    expect(maintenanceDue(done, ms(T0) + 48 * HOUR)).toBe(true);
  });

  it('is due at once when a long field reaches 80 % of its limit or the total 4,800, until a success', () => {
    const big = withField('standingInstructions', 'a'.repeat(800));
    expect(maintenanceDue(big, ms(T0))).toBe(true);
    expect(maintenanceDue(withField('standingInstructions', 'a'.repeat(799)), ms(T0))).toBe(false);
    let total = initialProfileState('default');
    for (const [f, n] of [
      ['responsePreferences', 790],
      ['standingInstructions', 790],
      ['userBackground', 1190],
      ['longTermGoals', 790],
      ['persistentNotes', 950],
      ['defaultLocation', 200],
      ['homeCity', 90],
    ] as const) {
      total = withField(f, 'b'.repeat(n), T0, total);
    }
    expect(maintenanceDue(total, ms(T0))).toBe(true);
    const unchanged = fold(
      decideProfileMaintenance(big, {
        basedOnRevision: 1,
        result: { ok: true, fields: [], model: null },
        newChangeId: () => 'x',
        at: T0,
        atMs: ms(T0),
      }),
      big,
    );
    expect(maintenanceDue(unchanged, ms(T0) + HOUR)).toBe(false);
  });

  it('backs off 5 min × count, 24 h after the third failure, and resets on a content change', () => {
    expect(maintenanceRetryAt(1, ms(T0))).toBe('2026-12-06T10:05:00.000Z');
    expect(maintenanceRetryAt(2, ms(T0))).toBe('2026-12-06T10:10:00.000Z');
    expect(maintenanceRetryAt(3, ms(T0))).toBe('2026-12-07T10:00:00.000Z');
    let state = withField('standingInstructions', 'a'.repeat(900));
    const fail = (s: ProfileState, atMs: number) =>
      fold(
        decideProfileMaintenance(s, {
          basedOnRevision: s.revision,
          result: {
            ok: false,
            error: { code: 'timeout', message: 'model timed out' },
            model: null,
          },
          newChangeId: () => 'x',
          at: utcIso(atMs),
          atMs,
        }),
        s,
      );
    state = fail(state, ms(T0));
    expect(state.maintenance).toMatchObject({
      failures: 1,
      nextAttemptAt: '2026-12-06T10:05:00.000Z',
    });
    expect(maintenanceDue(state, ms(T0) + 4 * 60_000)).toBe(false);
    expect(maintenanceDue(state, ms(T0) + 5 * 60_000)).toBe(true);
    state = fail(fail(state, ms(T0) + 5 * 60_000), ms(T0) + 15 * 60_000);
    expect(state.maintenance.failures).toBe(3);
    expect(state.maintenance.nextAttemptAt).toBe('2026-12-07T10:15:00.000Z');
    state = withField('standingInstructions', 'b'.repeat(900), T0, state);
    expect(state.maintenance).toMatchObject({ failures: 0, nextAttemptAt: null });
    expect(maintenanceDue(state, ms(T0) + 20 * 60_000)).toBe(true);
  });
});

describe('decideProfileMaintenance (MM-PRO-6)', () => {
  const text = 'Cite sources. Cite sources. Prefer metric units.';
  // Folding mutates the state it is given: each case folds its own.
  const fresh = () => withField('standingInstructions', text);
  const cmd = (over: Partial<MaintenanceCommand>): MaintenanceCommand => ({
    basedOnRevision: 1,
    result: {
      ok: true,
      fields: [{ field: 'standingInstructions', value: 'Cite sources. Prefer metric units.' }],
      model: { provider: 'offline', promptVersion: 'profile-compress@1' },
    },
    newChangeId: () => 'pchg_m',
    at: T0,
    atMs: ms(T0),
    ...over,
  });

  it('applies a valid compression as a maintenance change, recorded with the attempt', () => {
    const out = decideProfileMaintenance(fresh(), cmd({}));
    expect(out.map((r) => r.type)).toEqual(['ProfileFieldChanged', 'ProfileMaintained']);
    expect(out[0]!.data).toMatchObject({
      source: 'maintenance',
      oldValue: text,
      newValue: 'Cite sources. Prefer metric units.',
    });
    expect(out[1]!.data).toMatchObject({ outcome: 'compressed', changeIds: ['pchg_m'] });
  });

  it('a result read from an older revision is recorded as stale and applies nothing', () => {
    const moved = withField('homeCity', 'Harbin', T0, fresh());
    const out = decideProfileMaintenance(moved, cmd({}));
    expect(out).toEqual([
      {
        type: 'ProfileMaintained',
        data: expect.objectContaining({ outcome: 'stale', changeIds: [] }),
      },
    ]);
  });

  it('touching a short field, growing, or adding a fact fails the attempt', () => {
    const bad = (fields: { field: ProfileField; value: string }[]) =>
      decideProfileMaintenance(fresh(), cmd({ result: { ok: true, fields, model: null } }))[0]!
        .data;
    expect(bad([{ field: 'homeCity', value: 'Harbin' }])).toMatchObject({
      outcome: 'failed',
      error: { code: 'invalid_output' },
    });
    expect(bad([{ field: 'standingInstructions', value: `${text} More.` }])).toMatchObject({
      outcome: 'failed',
    });
    expect(
      bad([{ field: 'standingInstructions', value: 'Cite sources from Berlin.' }]),
    ).toMatchObject({ outcome: 'failed' });
    expect(bad([{ field: 'standingInstructions', value: 'Cite 3 sources.' }])).toMatchObject({
      outcome: 'failed',
    });
  });
});

describe('checkCompression and the offline extractive version', () => {
  it('drops repeated sentences and lines, keeps everything else word for word', () => {
    expect(
      compressExtractively(
        'Cite sources.  Cite sources. Use metric units.\nuse metric units.\n\n\nBe brief.',
      ),
    ).toBe('Cite sources. Use metric units.\n\nBe brief.');
    expect(compressExtractively('不要用表情。不要用表情。回答要简短。')).toBe(
      '不要用表情。 回答要简短。',
    );
    expect(compressExtractively('Nothing repeats here.')).toBe('Nothing repeats here.');
  });

  it('a compression that drops a negation is refused; merging statements is not', () => {
    const before = {
      ...emptyProfileValues(),
      standingInstructions:
        "Never use emojis. Keep answers short. Don't guess figures. Keep answers short.",
    };
    const check = (value: string) =>
      checkCompression(before, [{ field: 'standingInstructions', value }]);
    expect(check('Use emojis. Keep answers short. Guess figures.')).toEqual({
      ok: false,
      error: 'standingInstructions turns a statement into its opposite',
    });
    expect(check('Never use emojis. Keep answers short. Guess figures.')).toMatchObject({
      ok: false,
    });
    expect(check("Never use emojis. Keep answers short. Don't guess figures.")).toMatchObject({
      ok: true,
    });
    expect(check("Keep answers short and never use emojis. Don't guess figures.")).toMatchObject({
      ok: true,
    });
    const zh = { ...emptyProfileValues(), standingInstructions: '不要用表情。回答要简短。' };
    expect(
      checkCompression(zh, [{ field: 'standingInstructions', value: '要用表情。' }]),
    ).toMatchObject({ ok: false });
  });

  it('what the extractive version returns always passes the check', () => {
    const before = {
      ...emptyProfileValues(),
      persistentNotes: 'Likes tea. Likes tea. Has a cat named Mo.',
    };
    const value = compressExtractively(before.persistentNotes);
    expect(checkCompression(before, [{ field: 'persistentNotes', value }])).toEqual({
      ok: true,
      changed: [{ field: 'persistentNotes', value: 'Likes tea. Has a cat named Mo.' }],
    });
  });
});
