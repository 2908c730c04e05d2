import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AnyDb } from '@stratagate/store';
import { deferredLane } from './deferred-lane.ts';
import type { DeferredWork } from './projection.ts';

/** A queue of `items`, drained `maxSlice` at a time; counts the drains (each a transaction). */
type Queue = DeferredWork & { items: number; drains: number };

function queue(items: number, maxSlice = 2): Queue {
  const work: Queue = {
    items,
    drains: 0,
    maxSlice,
    async drain() {
      work.drains++;
      const n = Math.min(work.items, maxSlice);
      work.items -= n;
      return n;
    },
    async queued() {
      return { items: work.items, oldestPosition: work.items > 0 ? 1 : null };
    },
  };
  return work;
}

const db = {} as AnyDb;

describe('deferredLane', () => {
  it('opens no slice when nothing is queued', async () => {
    const work = queue(0);
    const lane = deferredLane({ db, work: () => work });
    lane.kick('rm');
    await lane.settle('rm');
    expect(work.drains).toBe(0);
  });

  it('drains everything queued, in slices, and stops once the queue is empty', async () => {
    const work = queue(5);
    let afterDrain = 0;
    const lane = deferredLane({
      db,
      work: () => work,
      afterDrain: async () => {
        afterDrain++;
      },
    });
    lane.kick('rm');
    await lane.settle('rm');
    expect(work.items).toBe(0);
    // 2 + 2 + 1: no fourth drain to find the queue empty.
    expect(work.drains).toBe(3);
    expect(afterDrain).toBe(1);
  });

  it('a kick while a drain runs makes it look again, so work queued meanwhile is drained', async () => {
    const work = queue(1, 1);
    const drain = work.drain;
    let first = true;
    work.drain = async (db, schema) => {
      const n = await drain(db, schema);
      if (first) {
        first = false;
        // Queued and kicked while the slice runs (a seal committed by the next batch).
        work.items += 1;
        lane.kick('rm');
      }
      return n;
    };
    const lane = deferredLane({ db, work: () => work });
    lane.kick('rm');
    await lane.settle('rm');
    expect(work.items).toBe(0);
    expect(work.drains).toBe(2);
  });

  describe('pacing (ADR 0028)', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    /** A lane on fake timers whose first kick has drained the one queued item. */
    async function pacedLane(paceMs: number) {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
      const work = queue(1, 4);
      const lane = deferredLane({ db, work: () => work, paceMs });
      lane.kick('rm');
      await vi.advanceTimersByTimeAsync(0);
      expect(work.drains).toBe(1);
      return { work, lane };
    }

    it('a kick within the pace of the last slice waits for it and then drains what gathered, in one slice; a whole slice queued or a settle does not wait', async () => {
      const { work, lane } = await pacedLane(100);

      // Two seals within the pace: held back, then one slice for both.
      work.items += 1;
      lane.kick('rm');
      await vi.advanceTimersByTimeAsync(50);
      expect(work.drains).toBe(1);
      work.items += 1;
      lane.kick('rm');
      await vi.advanceTimersByTimeAsync(40);
      expect(work.drains).toBe(1);
      await vi.advanceTimersByTimeAsync(10);
      expect(work.drains).toBe(2);
      expect(work.items).toBe(0);

      // A whole slice queued does not wait for the pace.
      await vi.advanceTimersByTimeAsync(10);
      work.items += 4;
      lane.kick('rm');
      await vi.advanceTimersByTimeAsync(0);
      expect(work.drains).toBe(3);
      expect(work.items).toBe(0);

      // Nor does settle (a caller waiting for the lane).
      work.items += 1;
      await lane.settle('rm');
      expect(work.drains).toBe(4);
      expect(work.items).toBe(0);
      await lane.stop();
    });

    it('paceMs 0 drains every kick at once', async () => {
      const { work, lane } = await pacedLane(0);
      for (let i = 2; i <= 3; i++) {
        work.items += 1;
        lane.kick('rm');
        await vi.advanceTimersByTimeAsync(0);
        expect(work.drains).toBe(i);
      }
    });

    it('stop cancels a held-back slice', async () => {
      const { work, lane } = await pacedLane(100);
      work.items += 1;
      lane.kick('rm');
      await vi.advanceTimersByTimeAsync(0);
      await lane.stop();
      await vi.advanceTimersByTimeAsync(200);
      expect(work.drains).toBe(1);
      expect(work.items).toBe(1);
    });
  });
});
