import { describe, expect, it } from 'vitest';
import type { MemoryRecord } from '../records/record-types.ts';
import {
  decideCreateProfile,
  decideForgetProposals,
  decideProfileEdit,
  decideProposal,
  decideProposalAnswer,
  type ProfileEditCommand,
  type ProposeChangeCommand,
} from './profile-decisions.ts';
import { evolveProfile, initialProfileState, type ProfileState } from './profile-state.ts';

/** Given these records of a profile's stream, the folded state. */
function given(profileId: string, records: MemoryRecord[]): ProfileState {
  return records.reduce((s, r, i) => evolveProfile(s, r, i + 1), initialProfileState(profileId));
}

const AT = '2026-12-06T10:00:00.000Z';
const edit = (over: Partial<ProfileEditCommand> = {}): ProfileEditCommand => ({
  field: 'preferredLanguage',
  value: 'Chinese',
  expectedRevision: null,
  source: 'settings',
  sourceMessageId: null,
  origin: null,
  changeId: 'pchg_1',
  at: AT,
  ...over,
});
const propose = (over: Partial<ProposeChangeCommand> = {}): ProposeChangeCommand => ({
  proposalId: 'prop_1',
  field: 'preferredLanguage',
  value: 'Chinese',
  origin: { spaceId: 's1', threadId: 'chat', turnId: null, afterThreadTurn: 2 },
  reason: null,
  at: AT,
  ...over,
});
const records = (d: { ok: boolean; records?: MemoryRecord[] }) => (d.ok ? (d.records ?? []) : []);

describe('decideCreateProfile', () => {
  it('creates once; default exists without it', () => {
    expect(decideCreateProfile(initialProfileState('alice'))).toEqual([
      { type: 'ProfileCreated', data: { profileId: 'alice' } },
    ]);
    const created = given('alice', decideCreateProfile(initialProfileState('alice')));
    expect(decideCreateProfile(created)).toEqual([]);
    expect(decideCreateProfile(initialProfileState('default'))).toEqual([]);
  });
});

describe('decideProfileEdit (MM-PRO-4/5)', () => {
  it('given an empty default profile, an edit writes one audit record with old and new', () => {
    const decision = decideProfileEdit(initialProfileState('default'), edit());
    expect(decision).toEqual({
      ok: true,
      modified: true,
      value: 'Chinese',
      records: [
        {
          type: 'ProfileFieldChanged',
          data: {
            profileId: 'default',
            changeId: 'pchg_1',
            field: 'preferredLanguage',
            oldValue: '',
            newValue: 'Chinese',
            source: 'settings',
            updatedAt: AT,
            sourceMessageId: null,
            origin: null,
            proposalId: null,
          },
        },
      ],
    });
    const state = given('default', records(decision));
    expect(state.values.preferredLanguage).toBe('Chinese');
    expect(state.fieldRevisions.preferredLanguage).toBe('pchg_1');
    expect(state.revision).toBe(1);
  });

  it('a stale expected revision or value is a conflict and writes nothing', () => {
    const state = given(
      'default',
      records(decideProfileEdit(initialProfileState('default'), edit())),
    );
    expect(decideProfileEdit(state, edit({ value: 'English', expectedRevision: null }))).toEqual({
      ok: false,
      code: 'conflict',
      field: 'preferredLanguage',
      revision: 'pchg_1',
      value: 'Chinese',
    });
    expect(
      decideProfileEdit(state, edit({ expectedRevision: undefined, expectedValue: 'French' })),
    ).toMatchObject({ ok: false, code: 'conflict' });
    expect(
      decideProfileEdit(
        state,
        edit({ value: 'English', expectedRevision: 'pchg_1', changeId: 'pchg_2' }),
      ),
    ).toMatchObject({
      ok: true,
      modified: true,
    });
  });

  it('the same value again writes nothing; over a limit names the field', () => {
    const state = given(
      'default',
      records(decideProfileEdit(initialProfileState('default'), edit())),
    );
    expect(
      decideProfileEdit(state, edit({ expectedRevision: 'pchg_1', value: ' Chinese ' })),
    ).toEqual({
      ok: true,
      modified: false,
      value: 'Chinese',
      records: [],
    });
    expect(
      decideProfileEdit(state, edit({ field: 'userPreferredName', value: 'x'.repeat(101) })),
    ).toEqual({
      ok: false,
      code: 'field_too_long',
      field: 'userPreferredName',
      limit: 100,
      length: 101,
    });
  });

  it('an unknown profile is refused', () => {
    expect(decideProfileEdit(initialProfileState('bob'), edit())).toEqual({
      ok: false,
      code: 'profile_not_found',
    });
  });

  it('an edit expires every pending proposal (another edit does not authorise it)', () => {
    const state = given(
      'default',
      records(decideProposal(initialProfileState('default'), propose())),
    );
    const decision = decideProfileEdit(state, edit({ field: 'homeCity', value: 'Harbin' }));
    expect(records(decision).map((r) => r.type)).toEqual([
      'ProfileFieldChanged',
      'ProfileProposalResolved',
    ]);
    expect(records(decision)[1]!.data).toMatchObject({
      proposalId: 'prop_1',
      outcome: 'expired',
      reason: 'other_edit',
    });
  });
});

describe('decideProposal and its answer (MM-PRO-4)', () => {
  const proposed = () =>
    given('default', records(decideProposal(initialProfileState('default'), propose())));

  it('records the stated field, value and the turn whose next user message decides', () => {
    const state = proposed();
    expect([...state.pending.values()]).toEqual([
      expect.objectContaining({
        proposalId: 'prop_1',
        field: 'preferredLanguage',
        value: 'Chinese',
        baseRevision: null,
        origin: { spaceId: 's1', threadId: 'chat', turnId: null, afterThreadTurn: 2 },
      }),
    ]);
    expect(state.values.preferredLanguage).toBe('');
  });

  it('the same proposal again is the pending one; another replaces it; a value already set proposes nothing', () => {
    const state = proposed();
    expect(decideProposal(state, propose({ proposalId: 'prop_2' }))).toMatchObject({
      ok: true,
      status: 'proposed',
      proposal: { proposalId: 'prop_1' },
      records: [],
    });
    const other = decideProposal(state, propose({ proposalId: 'prop_3', value: 'French' }));
    expect(
      records(other).map((r) => [r.type, (r.data as { proposalId: string }).proposalId]),
    ).toEqual([
      ['ProfileChangeProposed', 'prop_3'],
      ['ProfileProposalResolved', 'prop_1'],
    ]);
    // A proposal from a later turn leaves the earlier one to its own answer.
    const later = decideProposal(
      state,
      propose({
        proposalId: 'prop_4',
        value: 'French',
        origin: { spaceId: 's1', threadId: 'chat', turnId: null, afterThreadTurn: 3 },
      }),
    );
    expect(records(later).map((r) => r.type)).toEqual(['ProfileChangeProposed']);
    const set = given(
      'default',
      records(decideProfileEdit(initialProfileState('default'), edit())),
    );
    expect(decideProposal(set, propose())).toEqual({
      ok: true,
      status: 'unchanged',
      proposal: null,
      records: [],
    });
  });

  it('"agree" in the next user message applies exactly that change, once', () => {
    const state = proposed();
    const answer = decideProposalAnswer(state, {
      proposalId: 'prop_1',
      answer: { messageId: 'msg_9', content: 'Agree.' },
      changeId: 'pchg_7',
      at: AT,
    });
    expect(answer).toEqual([
      {
        type: 'ProfileFieldChanged',
        data: expect.objectContaining({
          changeId: 'pchg_7',
          field: 'preferredLanguage',
          oldValue: '',
          newValue: 'Chinese',
          source: 'agent_tool',
          sourceMessageId: 'msg_9',
          origin: { spaceId: 's1', threadId: 'chat' },
          proposalId: 'prop_1',
        }),
      },
      {
        type: 'ProfileProposalResolved',
        data: expect.objectContaining({
          outcome: 'applied',
          reason: 'agreed',
          answerMessageId: 'msg_9',
        }),
      },
    ]);
    const after = given('default', [
      ...records(decideProposal(initialProfileState('default'), propose())),
      ...answer,
    ]);
    expect(after.values.preferredLanguage).toBe('Chinese');
    expect(
      decideProposalAnswer(after, {
        proposalId: 'prop_1',
        answer: { messageId: 'm', content: 'yes' },
        changeId: 'x',
        at: AT,
      }),
    ).toEqual([]);
  });

  it('a topic change in the next message expires it and writes no change', () => {
    const answer = decideProposalAnswer(proposed(), {
      proposalId: 'prop_1',
      answer: { messageId: 'msg_9', content: 'What is the weather in Harbin tomorrow?' },
      changeId: 'pchg_7',
      at: AT,
    });
    expect(answer).toEqual([
      {
        type: 'ProfileProposalResolved',
        data: expect.objectContaining({ outcome: 'expired', reason: 'not_agreed' }),
      },
    ]);
  });

  it('agreement to a proposal whose field changed meanwhile applies nothing', () => {
    const base = records(decideProposal(initialProfileState('default'), propose()));
    // A maintenance-free edit would expire it; a concurrent change of the field's revision is
    // modelled by folding a change without its expiry.
    const state = given('default', [
      ...base,
      records(decideProfileEdit(initialProfileState('default'), edit({ value: 'German' })))[0]!,
    ]);
    expect(
      decideProposalAnswer(state, {
        proposalId: 'prop_1',
        answer: { messageId: 'm', content: '同意' },
        changeId: 'x',
        at: AT,
      }),
    ).toEqual([
      {
        type: 'ProfileProposalResolved',
        data: expect.objectContaining({ outcome: 'expired', reason: 'other_edit' }),
      },
    ]);
  });
});

describe('decideForgetProposals (ADR 0046)', () => {
  const origin = (spaceId: string, threadId: string, afterThreadTurn: number) => ({
    spaceId,
    threadId,
    turnId: null,
    afterThreadTurn,
  });
  const state = initialProfileState('default');
  for (const cmd of [
    propose(),
    propose({
      proposalId: 'prop_2',
      field: 'homeCity',
      value: 'Harbin',
      origin: origin('s1', 'chat', 3),
    }),
    propose({
      proposalId: 'prop_3',
      field: 'currentCity',
      value: 'Dalian',
      origin: origin('s1', 'other', 1),
    }),
    propose({
      proposalId: 'prop_4',
      field: 'longTermGoals',
      value: 'Run',
      origin: origin('s2', 'chat', 1),
    }),
  ]) {
    for (const r of records(decideProposal(state, cmd))) evolveProfile(state, r, state.version + 1);
  }
  const forgotten = (from: { spaceId: string; threadId: string | null }) =>
    decideForgetProposals(state, from, AT).map((r) => {
      expect(r.data).toMatchObject({ outcome: 'expired', reason: 'erased', answerMessageId: null });
      return r.data.proposalId;
    });

  it("expires the pending proposals of the erased thread only, or all of the erased space's", () => {
    expect(state.pending.size).toBe(4);
    expect(forgotten({ spaceId: 's1', threadId: 'chat' }).sort()).toEqual(['prop_1', 'prop_2']);
    expect(forgotten({ spaceId: 's1', threadId: null }).sort()).toEqual([
      'prop_1',
      'prop_2',
      'prop_3',
    ]);
    expect(forgotten({ spaceId: 's3', threadId: null })).toEqual([]);
  });
});
