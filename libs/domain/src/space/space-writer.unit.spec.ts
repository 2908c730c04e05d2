import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MemoryRecord } from '../records/record-types.ts';
import {
  decideCloseThread,
  decideConfigureSpace,
  decideRecordTurn,
  decideRetryDerivation,
  isSameTurn,
  evolveSpaceWriter,
  initialSpaceWriterState,
  restoreSpaceWriter,
  snapshotSpaceWriter,
  type SpaceWriterState,
} from './space-writer.ts';

function harness() {
  const state = initialSpaceWriterState();
  let version = 0;
  let ids = 0;
  const apply = (records: MemoryRecord[]) => {
    for (const r of records) evolveSpaceWriter(state, r, ++version);
    return records;
  };
  const post = (threadId: string, turnId: string) =>
    apply(
      decideRecordTurn(state, {
        turnId,
        threadId,
        occurredAt: '2023-05-01T00:00:00Z',
        messages: [{ role: 'user', content: turnId, toolCalls: [] }],
        newMessageId: () => `msg_${++ids}`,
        newBlockId: () => `blk_${++ids}`,
      }),
    );
  const configure = (blockSize: number) => apply(decideConfigureSpace(state, { blockSize }));
  const close = (threadId: string) =>
    apply(decideCloseThread(state, { threadId, newBlockId: () => `blk_${++ids}` }));
  return { state: state as SpaceWriterState, post, configure, close };
}

const seals = (records: MemoryRecord[]) =>
  records.flatMap((r) => (r.type === 'BlockSealed' ? [r.data] : []));

describe('sealing (MM-BLK-2/3, MM-GEN-3)', () => {
  it('numbers turns per space and per thread', () => {
    const h = harness();
    const [a] = h.post('t1', 'a');
    const [b] = h.post('t2', 'b');
    const [c] = h.post('t1', 'c');
    expect(
      [a, b, c].map((r) => r?.type === 'TurnRecorded' && [r.data.spaceTurn, r.data.threadTurn]),
    ).toEqual([
      [1, 1],
      [2, 1],
      [3, 2],
    ]);
  });

  it('block size 2 with interleaved threads: each thread seals on its own', () => {
    const h = harness();
    h.configure(2);
    const sealed = [
      ...h.post('t1', 'a1'),
      ...h.post('t2', 'b1'),
      ...h.post('t1', 'a2'),
      ...h.post('t2', 'b2'),
      ...h.post('t1', 'a3'),
    ];
    expect(
      seals(sealed).map((s) => [s.threadId, s.turnIds, s.turnFrom, s.turnTo, s.sequence]),
    ).toEqual([
      ['t1', ['a1', 'a2'], 1, 2, 1],
      ['t2', ['b1', 'b2'], 1, 2, 2],
    ]);
    expect(h.state.threads.get('t1')?.openTurnIds).toEqual(['a3']);
  });

  it('the default block size is 12 and a shorter tail stays open', () => {
    const h = harness();
    const out = Array.from({ length: 11 }, (_, i) => h.post('t', `x${i}`)).flat();
    expect(seals(out)).toEqual([]);
    const last = seals(h.post('t', 'x11'));
    expect(last).toHaveLength(1);
    expect(last[0]!.turnIds).toHaveLength(12);
    expect(last[0]!.blockSize).toBe(12);
  });

  it('a block-size change affects future seals only', () => {
    const h = harness();
    h.configure(3);
    const first = seals([...h.post('t', '1'), ...h.post('t', '2'), ...h.post('t', '3')]);
    h.configure(2);
    const second = seals([...h.post('t', '4'), ...h.post('t', '5')]);
    expect(first.map((s) => [s.turnFrom, s.turnTo, s.blockSize])).toEqual([[1, 3, 3]]);
    expect(second.map((s) => [s.turnFrom, s.turnTo, s.blockSize])).toEqual([[4, 5, 2]]);
  });

  it('configuring with unchanged settings records nothing', () => {
    const h = harness();
    expect(h.configure(6)).toHaveLength(1);
    expect(h.configure(6)).toHaveLength(0);
  });

  it('counts only opened evidence batches, whatever else the space records', () => {
    const h = harness();
    const state = h.state;
    const other: MemoryRecord[] = [
      { type: 'ExtractionSkipped', data: { blockId: 'b', reason: 'r' } },
      { type: 'DerivationRetryRequested', data: { blockId: 'b', job: 'summary' } },
      {
        type: 'EvidenceBatchOpened',
        data: {
          batchId: 'batch_1',
          threadId: 't',
          operation: 'search_raw',
          query: 'q',
          refs: [],
          retrievedEventIds: [],
        },
      },
    ];
    other.forEach((r, i) => evolveSpaceWriter(state, r, 100 + i));
    expect(state.batchCount).toBe(1);
  });

  it('binds to a profile; an unbound space reads default', () => {
    const h = harness();
    expect(h.state.profileId).toBe('default');
    const bound = decideConfigureSpace(h.state, { profileId: 'alice' });
    expect(bound).toEqual([
      { type: 'SpaceConfigured', data: { blockSize: 12, decayLambda: 0.3, profileId: 'alice' } },
    ]);
    evolveSpaceWriter(h.state, bound[0]!, 1);
    expect(h.state.profileId).toBe('alice');
    // A block-size change keeps the binding; the same binding again records nothing.
    expect(decideConfigureSpace(h.state, { blockSize: 4 })[0]!.data.profileId).toBe('alice');
    expect(decideConfigureSpace(h.state, { profileId: 'alice' })).toEqual([]);
  });

  it('remembers the version of the last record that changed memory events', () => {
    const h = harness();
    h.post('t', 'turn-1');
    expect(h.state.memoryVersion).toBe(0);
    evolveSpaceWriter(
      h.state,
      { type: 'MemoryEventStateChanged', data: { eventId: 'evt_1', change: 'pinned' } },
      7,
    );
    expect(h.state.memoryVersion).toBe(7);
    h.post('t', 'turn-2');
    expect(h.state.memoryVersion).toBe(7);
  });
});

describe('closing a session (MM-SPACE-3)', () => {
  it('seals the open tail as a shorter block; closing again or an unknown thread is a no-op', () => {
    const h = harness();
    h.configure(3);
    h.post('t1', 'a1');
    h.post('t1', 'a2');
    h.post('t1', 'a3'); // sealed by size
    h.post('t2', 'b1');
    h.post('t1', 'a4');
    h.post('t1', 'a5');
    const closed = seals(h.close('t1'));
    expect(closed).toEqual([
      expect.objectContaining({
        threadId: 't1',
        turnFrom: 4,
        turnTo: 5,
        turnIds: ['a4', 'a5'],
        sequence: 2,
        spaceTurnTo: 6,
        reason: 'closed',
      }),
    ]);
    expect(h.close('t1')).toEqual([]);
    expect(h.close('nope')).toEqual([]);
    // The other thread's tail is untouched, and the closed thread goes on counting turns.
    expect(h.state.threads.get('t2')?.openTurnIds).toEqual(['b1']);
    const [next] = h.post('t1', 'a6');
    expect(next?.type === 'TurnRecorded' && next.data.threadTurn).toBe(6);
  });
});

describe('write-side snapshots', () => {
  /** One step of a space's history: a turn, a close, a configuration, or an evidence batch. */
  const step = fc.oneof(
    fc.record({ kind: fc.constant('turn' as const), thread: fc.constantFrom('t1', 't2', 't3') }),
    fc.record({ kind: fc.constant('close' as const), thread: fc.constantFrom('t1', 't2', 't3') }),
    fc.record({
      kind: fc.constant('configure' as const),
      blockSize: fc.integer({ min: 1, max: 5 }),
    }),
    fc.record({ kind: fc.constant('batch' as const) }),
  );

  /** The records a history of steps appends, decided as the writer decides them. */
  type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

  function recordsOf(steps: readonly Step[]) {
    const state = initialSpaceWriterState();
    const records: MemoryRecord[] = [];
    let version = 0;
    let ids = 0;
    for (const s of steps) {
      let decided: MemoryRecord[];
      if (s.kind === 'turn') {
        const turnId = `turn_${++ids}`;
        decided = decideRecordTurn(state, {
          turnId,
          threadId: s.thread,
          occurredAt: '2023-05-01T00:00:00Z',
          messages: [{ role: 'user', content: turnId, toolCalls: [] }],
          newMessageId: () => `msg_${++ids}`,
          newBlockId: () => `blk_${++ids}`,
        });
      } else if (s.kind === 'close') {
        decided = decideCloseThread(state, {
          threadId: s.thread,
          newBlockId: () => `blk_${++ids}`,
        });
      } else if (s.kind === 'configure') {
        decided = decideConfigureSpace(state, { blockSize: s.blockSize });
      } else {
        decided = [
          {
            type: 'EvidenceBatchOpened',
            data: {
              batchId: `batch_${state.batchCount + 1}`,
              threadId: 't1',
              operation: 'search_raw',
              query: 'q',
              refs: [],
              retrievedEventIds: [],
            },
          },
        ];
      }
      for (const r of decided) evolveSpaceWriter(state, r, ++version);
      records.push(...decided);
    }
    return { records, state };
  }
  it('a snapshot taken anywhere, stored as JSON and restored, folds on to the same state', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), fc.nat(), (steps, at) => {
        const { records, state: direct } = recordsOf(steps);
        const cut = records.length === 0 ? 0 : at % (records.length + 1);
        const prefix = initialSpaceWriterState();
        records.slice(0, cut).forEach((r, i) => evolveSpaceWriter(prefix, r, i + 1));
        const stored = JSON.parse(JSON.stringify(snapshotSpaceWriter(prefix))) as unknown;
        const restored = restoreSpaceWriter(stored);
        expect(restored).toEqual(prefix);
        records.slice(cut).forEach((r, i) => evolveSpaceWriter(restored!, r, cut + i + 1));
        expect(restored).toEqual(direct);
      }),
    );
  });

  it('is detached from the live state: folding on does not change a snapshot taken before', () => {
    const h = harness();
    h.configure(3);
    h.post('t1', 'a1');
    const snapshot = snapshotSpaceWriter(h.state);
    const before = JSON.stringify(snapshot);
    h.post('t1', 'a2');
    h.post('t2', 'b1');
    expect(JSON.stringify(snapshot)).toBe(before);
  });

  it('rejects what is not a snapshot of this format', () => {
    const good = snapshotSpaceWriter(initialSpaceWriterState());
    expect(restoreSpaceWriter(good)).toEqual(initialSpaceWriterState());
    expect(restoreSpaceWriter(null)).toBeNull();
    expect(restoreSpaceWriter({ ...good, version: -1 })).toBeNull();
    expect(restoreSpaceWriter({ ...good, extra: 1 })).toBeNull();
    expect(restoreSpaceWriter({ ...good, threads: [['t1', { turnCount: 1 }]] })).toBeNull();
  });
});

describe('retrying a derivation job (MM-JOB-3)', () => {
  it('when an operator asks for the graph job of a block again, then the request is recorded', () => {
    expect(decideRetryDerivation({ blockId: 'blk_1', job: 'graph' })).toEqual([
      { type: 'DerivationRetryRequested', data: { blockId: 'blk_1', job: 'graph' } },
    ]);
  });
});

describe('a turnId sent again (isSameTurn)', () => {
  const recorded = {
    turnId: 'turn-1',
    threadId: 'session-1',
    spaceTurn: 1,
    threadTurn: 1,
    occurredAt: '2023-05-08T13:56:00+08:00',
    messages: [
      { messageId: 'msg_1', role: 'user' as const, name: 'Caroline', content: 'Hi', toolCalls: [] },
      {
        messageId: 'msg_2',
        role: 'assistant' as const,
        content: 'CI passed.',
        toolCalls: [{ name: 'ci', arguments: { branch: 'main', run: 1 }, result: { ok: true } }],
      },
    ],
  };
  const retry = () => ({
    threadId: 'session-1',
    occurredAt: '2023-05-08T13:56:00+08:00',
    messages: [
      { role: 'user' as const, name: 'Caroline', content: 'Hi', toolCalls: [] },
      {
        role: 'assistant' as const,
        content: 'CI passed.',
        // Key order is not part of the turn.
        toolCalls: [{ name: 'ci', arguments: { run: 1, branch: 'main' }, result: { ok: true } }],
      },
    ],
  });

  it('the same turn is the same, also without occurredAt (the server stamped the first)', () => {
    expect(isSameTurn(recorded, retry())).toBe(true);
    expect(isSameTurn(recorded, { ...retry(), occurredAt: undefined })).toBe(true);
  });

  it.each([
    ['thread', (r: ReturnType<typeof retry>) => ({ ...r, threadId: 'session-2' })],
    ['time', (r: ReturnType<typeof retry>) => ({ ...r, occurredAt: '2023-05-08T13:57:00+08:00' })],
    ['content', (r: ReturnType<typeof retry>) => ({ ...r, messages: [r.messages[0]!] })],
    [
      'speaker',
      (r: ReturnType<typeof retry>) => ({
        ...r,
        messages: [{ ...r.messages[0]!, name: 'Melanie' }, r.messages[1]!],
      }),
    ],
    [
      'tool call',
      (r: ReturnType<typeof retry>) => ({
        ...r,
        messages: [
          r.messages[0]!,
          { ...r.messages[1]!, toolCalls: [{ name: 'ci', arguments: { branch: 'dev', run: 1 } }] },
        ],
      }),
    ],
  ])('a different %s is another turn', (_what, change) => {
    expect(isSameTurn(recorded, change(retry()))).toBe(false);
  });
});
