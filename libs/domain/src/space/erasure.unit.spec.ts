import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MemoryRecord } from '../records/record-types.ts';
import { decideErasure, type EraseCommand } from './erasure.ts';
import {
  decideCloseThread,
  decideRecordTurn,
  evolveSpaceWriter,
  initialSpaceWriterState,
  snapshotSpaceWriter,
  type SpaceWriterState,
} from './space-writer.ts';

type Step = { kind: 'turn'; thread: string } | { kind: 'close'; thread: string };

/** Runs `steps` through the deciders, as the writer does; returns the records, in order. */
function play(steps: Step[], state = initialSpaceWriterState()): MemoryRecord[] {
  const records: MemoryRecord[] = [];
  let ids = 0;
  for (const step of steps) {
    const decided: MemoryRecord[] =
      step.kind === 'turn'
        ? decideRecordTurn(state, {
            turnId: `turn-${++ids}`,
            threadId: step.thread,
            occurredAt: '2023-05-01T00:00:00Z',
            messages: [{ role: 'user', content: 'x', toolCalls: [] }],
            newMessageId: () => `msg_${++ids}`,
            newBlockId: () => `blk_${++ids}`,
          })
        : decideCloseThread(state, { threadId: step.thread, newBlockId: () => `blk_${++ids}` });
    for (const r of decided) {
      records.push(r);
      evolveSpaceWriter(state, r, records.length);
    }
  }
  return records;
}

const threadOf = (r: MemoryRecord) => ('threadId' in r.data ? r.data.threadId : undefined);

/** Folds `records` as a reader does after the erasure: the erased ones are skipped. */
function foldWithout(records: MemoryRecord[], erased: (r: MemoryRecord) => boolean) {
  const state = initialSpaceWriterState();
  records.forEach((r, i) => {
    if (erased(r)) state.version = i + 1;
    else evolveSpaceWriter(state, r, i + 1);
  });
  return state;
}

const erase = (state: SpaceWriterState, target: EraseCommand['target']) =>
  decideErasure(state, { erasureId: 'erase_1', target, requestedBy: 'key1' });

describe('erasure on the write side (ADR 0046)', () => {
  it('given a space with two threads, when one is erased, the record keeps the counters', () => {
    const state = initialSpaceWriterState();
    const records = play(
      [
        { kind: 'turn', thread: 'a' },
        { kind: 'turn', thread: 'b' },
        { kind: 'turn', thread: 'a' },
        { kind: 'close', thread: 'a' },
      ],
      state,
    );
    const [erasure] = erase(state, { scope: 'thread', threadId: 'a' });
    expect(erasure!.data).toEqual({
      erasureId: 'erase_1',
      scope: 'thread',
      threadId: 'a',
      requestedBy: 'key1',
      counters: { turnCounter: 3, blockSequence: 1, batchCount: 0 },
    });
    evolveSpaceWriter(state, erasure!, records.length + 1);
    expect([...state.threads.keys()]).toEqual(['b']);
    expect(state.turnCounter).toBe(3);
  });

  it('folding without the erased records gives the state the live writer has, whatever came before', () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant('turn' as const), thread: fc.constantFrom('a', 'b', 'c') }),
      fc.record({ kind: fc.constant('close' as const), thread: fc.constantFrom('a', 'b', 'c') }),
    );
    fc.assert(
      fc.property(
        fc.array(step, { maxLength: 40 }),
        fc.array(step, { maxLength: 10 }),
        fc.constantFrom('a', 'b', 'space'),
        (before, after, erased) => {
          const live = initialSpaceWriterState();
          const records = play(before, live);
          const target =
            erased === 'space'
              ? ({ scope: 'space' } as const)
              : ({ scope: 'thread', threadId: erased } as const);
          const [erasure] = erase(live, target);
          records.push(erasure!);
          evolveSpaceWriter(live, erasure!, records.length);
          // Turns after the erasure, decided on the live state (its version then counts from
          // this run's own start: aligned below).
          for (const r of play(after, live)) records.push(r);
          live.version = records.length;
          const isErased = (r: MemoryRecord, i: number) =>
            i < records.indexOf(erasure!) &&
            r.type !== 'ContentErased' &&
            (erased === 'space' || threadOf(r) === erased);
          const indexed = new Map(records.map((r, i) => [r, i]));
          const folded = foldWithout(records, (r) => isErased(r, indexed.get(r)!));
          expect(snapshotSpaceWriter(folded)).toEqual(snapshotSpaceWriter(live));
        },
      ),
    );
  });
});
