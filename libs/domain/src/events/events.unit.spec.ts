import { describe, expect, it } from 'vitest';
import { admitEvents, type ProposedEvent } from './admission.ts';
import { validCatalogHints } from './catalog-hints.ts';
import { normaliseEventType, repairTemporal } from './temporal-repair.ts';
import { eventWeight } from './weight.ts';

describe('temporal repair (MM-EVT-5/6)', () => {
  it('a non-object becomes {}, with defaults', () => {
    expect(repairTemporal('x')).toMatchObject({
      precision: 'unknown',
      basis: 'unknown',
      participants: [],
    });
    expect(repairTemporal('x').mentionedAt).toBeUndefined();
  });
  it('drops only the mistyped field: participants ["a", 3]', () => {
    const t = repairTemporal({
      participants: ['a', 3],
      originalText: 'last week',
      happenedStart: 5,
    });
    expect(t.participants).toEqual([]);
    expect(t.originalText).toBe('last week');
    expect(t.happenedStart).toBeUndefined();
  });
  it.each([
    ['发布', 'release'],
    ['Released', 'release'],
    ['版本发布', 'release'],
    ['决策', 'decision'],
    ['取消', 'cancellation'],
    ['canceled', 'cancellation'],
    ['Task-Completed', 'task_completed'],
    ['banana', 'other'],
  ])('event type %s → %s', (input, expected) => {
    expect(normaliseEventType(input)).toBe(expected);
  });
});

describe('catalog hints (MM-EVT-18)', () => {
  it("['other','其他','chapter:x','A / B','UI/UX'] → ['UI/UX']", () => {
    expect(validCatalogHints(['other', '其他', 'chapter:x', 'A / B', 'UI/UX'])).toEqual(['UI/UX']);
  });
  it('keeps at most 2 unique values of ≤ 64 code points', () => {
    expect(validCatalogHints(['a', 'a', 'b', 'c', 'x'.repeat(65)])).toEqual(['a', 'b']);
  });
});

describe('weights (MM-WGT-1/2)', () => {
  const base = { status: 'active' as const, lastAdoptedTurn: 0, pinned: false, forcedCap: null };
  it.each([
    [
      'routine, n=1, t=10',
      { criticality: 'routine' as const, mentionCount: 1, currentTurn: 10 },
      0.2231,
    ],
    [
      'routine, n=2, t=10',
      { criticality: 'routine' as const, mentionCount: 2, currentTurn: 10 },
      0.4793,
    ],
    [
      'preference, n=1, t=20',
      { criticality: 'preference' as const, mentionCount: 1, currentTurn: 20 },
      0.3,
    ],
  ])('%s', (_name, input, expected) => {
    expect(eventWeight({ ...base, ...input })).toBeCloseTo(expected, 4);
  });
  it('superseded identity weighs 0.1, pinned 1, forgotten 0', () => {
    const identity = { ...base, criticality: 'identity' as const, mentionCount: 1, currentTurn: 0 };
    expect(eventWeight({ ...identity, status: 'superseded' })).toBe(0.1);
    expect(
      eventWeight({ ...identity, criticality: 'routine', currentTurn: 50, pinned: true }),
    ).toBe(1);
    expect(eventWeight({ ...identity, status: 'forgotten' })).toBe(0);
  });
});

describe('admission (MM-EVT-15/16/17)', () => {
  let n = 0;
  const ctx = {
    blockId: 'blk_1',
    threadId: 't1',
    blockMessageIds: ['m1', 'm2'],
    messageTimes: { m1: '2023-05-06T10:00:00Z', m2: '2023-05-06T10:01:00Z' },
    linkableEventIds: new Set(['evt_old']),
    formedTurn: 12,
    newEventId: () => `evt_${++n}`,
  };
  const proposal = (over: Partial<ProposedEvent> = {}): ProposedEvent => ({
    title: 'Switched to pnpm',
    summary: 'We switched to pnpm.',
    tags: ['pnpm'],
    quotes: [],
    sourceMessageIds: ['m2'],
    scope: 'project',
    criticality: 'routine',
    temporal: { status: 'occurred' },
    ...over,
  });

  it('filters cited ids to the block, and cites all of it when none remain', () => {
    const [a] = admitEvents([proposal({ sourceMessageIds: ['m2', 'elsewhere'] })], ctx);
    expect(a!.sourceMessageIds).toEqual(['m2']);
    const [b] = admitEvents([proposal({ sourceMessageIds: ['elsewhere'] })], ctx);
    expect(b!.sourceMessageIds).toEqual(['m1', 'm2']);
  });

  it('keeps only relations to linkable timeline events, never self or unknown ids', () => {
    const [e] = admitEvents(
      [
        proposal({
          relations: {
            supersedesEventIds: ['evt_old', 'evt_old', 'evt_unknown'],
            sameEventId: 'evt_x',
          },
        }),
      ],
      ctx,
    );
    expect(e!.temporal.supersedesEventIds).toEqual(['evt_old']);
    expect(e!.temporal.sameEventId).toBeUndefined();
  });

  it('defaults mentionedAt to the first cited message time and records the formed turn', () => {
    const [e] = admitEvents([proposal()], ctx);
    expect(e!.temporal.mentionedAt).toBe('2023-05-06T10:01:00Z');
    expect(e!.formedTurn).toBe(12);
    expect(e!.sourceBlockId).toBe('blk_1');
  });

  it('merges identical cards, uniting sources and tags', () => {
    const out = admitEvents(
      [
        proposal({ sourceMessageIds: ['m1'], tags: ['a'] }),
        proposal({ sourceMessageIds: ['m2'], tags: ['b'] }),
      ],
      ctx,
    );
    expect(out).toHaveLength(1);
    expect(out[0]!.sourceMessageIds).toEqual(['m1', 'm2']);
    expect(out[0]!.tags).toEqual(['a', 'b']);
  });
});
