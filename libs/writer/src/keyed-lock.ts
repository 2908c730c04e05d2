/**
 * Runs work one at a time per key, in call order, in this process: the space writer and the
 * profile writer serialise each stream's decide-and-append with it (MM-GEN-8). A failed run
 * does not stop the next.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Whether work for `key` is running or waiting. */
  held(key: string): boolean {
    return this.tails.has(key);
  }

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const run = previous.then(fn, fn);
    const settled = run.catch(() => undefined);
    this.tails.set(key, settled);
    try {
      return await run;
    } finally {
      if (this.tails.get(key) === settled) this.tails.delete(key);
    }
  }
}
