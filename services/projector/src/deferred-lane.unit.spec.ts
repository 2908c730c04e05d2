import { describe, expect, it } from 'vitest';
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
});
