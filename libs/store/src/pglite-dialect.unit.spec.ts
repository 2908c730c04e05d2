import { describe, expect, it } from 'vitest';
import { SessionLock } from './pglite-dialect.ts';

describe('SessionLock (the one embedded session)', () => {
  it('hands the session to foreground waiters before background ones, FIFO within each', async () => {
    const lock = new SessionLock();
    const order: string[] = [];
    const release = await lock.acquire('background');
    const waiter = (name: string, priority: 'foreground' | 'background') =>
      lock.acquire(priority).then((done) => {
        order.push(name);
        done();
      });
    const all = Promise.all([
      waiter('bg1', 'background'),
      waiter('bg2', 'background'),
      waiter('fg1', 'foreground'),
      waiter('fg2', 'foreground'),
    ]);
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual([]); // nobody runs while the session is held
    release();
    await all;
    expect(order).toEqual(['fg1', 'fg2', 'bg1', 'bg2']);
  });

  it('a second release of the same hold frees nothing more', async () => {
    const lock = new SessionLock();
    const first = await lock.acquire('background');
    let secondHeld = false;
    const second = lock.acquire('background').then((done) => {
      secondHeld = true;
      return done;
    });
    first();
    const releaseSecond = await second;
    expect(secondHeld).toBe(true);
    let thirdHeld = false;
    const third = lock.acquire('foreground').then(() => (thirdHeld = true));
    first(); // stale release: must not let the third in while the second holds
    await new Promise((r) => setImmediate(r));
    expect(thirdHeld).toBe(false);
    releaseSecond();
    await third;
    expect(thirdHeld).toBe(true);
  });
});
