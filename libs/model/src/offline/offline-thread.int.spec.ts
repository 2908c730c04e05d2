import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { turnCounter } from '../../../../test/support/event-loop.ts';
import { ModelError, type BlockSummaryInput } from '../model-port.ts';
import { GRAPH_INPUT } from '../openai/graph-test-inputs.ts';
import { PNPM_BLOCK, workBlock } from './extraction/test-fixtures.ts';
import { createOfflineProvider } from './offline-provider.ts';
import { createOfflineProviderThread } from './offline-thread.ts';
import { CHINESE_BLOCK, ENGLISH_BLOCK, FILLER_BLOCK } from './test-blocks.ts';

/** A block long enough that the offline provider takes a while over it. */
function bigBlock(): BlockSummaryInput {
  const base = ENGLISH_BLOCK.messages;
  const messages = Array.from({ length: 400 }, (_, i) => ({
    ...base[i % base.length]!,
    messageId: `m${i}`,
    content: `${base[i % base.length]!.content} On ${(i % 27) + 1} March we met in Lisbon.`,
  }));
  return { blockId: 'blk_big', threadId: 'thread_1', messages };
}

/** The nice value of thread `tid` of this process, from /proc (Linux). */
function niceOf(tid: number | string): number {
  const stat = readFileSync(`/proc/${process.pid}/task/${tid}/stat`, 'utf8');
  // Fields after the command's closing parenthesis start at field 3 (state); nice is field 19.
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

const onLinux = process.platform === 'linux';
if (!onLinux) {
  console.warn(`SKIPPED: thread nice values are set on Linux only (this is ${process.platform})`);
}

/** Turns of the caller's event loop while `run` goes on. */
async function turnsDuring<T>(run: () => Promise<T>): Promise<number> {
  const counter = turnCounter();
  try {
    await run();
    return counter.turns;
  } finally {
    counter.stop();
  }
}

describe('the offline provider on a thread of its own (ADR 0022)', () => {
  const inThread = createOfflineProvider();
  const threaded = createOfflineProviderThread();
  afterAll(() => threaded.close());

  it('gives exactly the in-thread provider’s results for summaries, extraction and graph proposals', async () => {
    for (const block of [ENGLISH_BLOCK, CHINESE_BLOCK, FILLER_BLOCK]) {
      expect(await threaded.summarizeBlock(block)).toEqual(await inThread.summarizeBlock(block));
    }
    for (const block of [PNPM_BLOCK, workBlock()]) {
      expect(await threaded.extractMemoryEvents!(block)).toEqual(
        await inThread.extractMemoryEvents!(block),
      );
    }
    expect(await threaded.proposeGraph!(GRAPH_INPUT)).toEqual(
      await inThread.proposeGraph!(GRAPH_INPUT),
    );
    expect(threaded.name).toBe(inThread.name);
    expect(threaded.deterministic).toBe(true);
  });

  it('leaves the caller’s event loop free while it works; in-thread, the loop stands still', async () => {
    const block = bigBlock();
    await threaded.summarizeBlock(block); // the thread has started and compiled its code
    // In-thread the whole summary is computed before the promise is even returned.
    expect(await turnsDuring(() => inThread.summarizeBlock(block))).toBe(0);
    expect(await turnsDuring(() => threaded.summarizeBlock(block))).toBeGreaterThan(10);
  });

  it('answers concurrent calls each with its own result', async () => {
    const blocks = [ENGLISH_BLOCK, CHINESE_BLOCK, FILLER_BLOCK, ENGLISH_BLOCK];
    const results = await Promise.all(blocks.map((b) => threaded.summarizeBlock(b)));
    expect(results.map((r) => r.output.title)).toEqual(
      await Promise.all(blocks.map(async (b) => (await inThread.summarizeBlock(b)).output.title)),
    );
  });

  it('brings an error back with its name and message; an aborted call is never sent', async () => {
    const broken = { blockId: 'b', threadId: 't', messages: null } as unknown as BlockSummaryInput;
    await expect(threaded.summarizeBlock(broken)).rejects.toMatchObject({ name: 'TypeError' });
    const controller = new AbortController();
    controller.abort();
    const aborted = threaded.summarizeBlock(ENGLISH_BLOCK, { signal: controller.signal });
    await expect(aborted).rejects.toBeInstanceOf(ModelError);
    await expect(aborted).rejects.toMatchObject({ code: 'aborted', transient: true });
    // The thread is still there for the next call.
    expect((await threaded.summarizeBlock(ENGLISH_BLOCK)).output.title).toBeTruthy();
  });

  it('once closed, refuses calls (not transient) and rejects the ones still out', async () => {
    const other = createOfflineProviderThread();
    const out = expect(other.summarizeBlock(bigBlock())).rejects.toMatchObject({
      code: 'closed',
      transient: false,
    });
    await other.close();
    await out;
    await expect(other.summarizeBlock(ENGLISH_BLOCK)).rejects.toMatchObject({ code: 'closed' });
  });

  it('a thread that dies fails its calls as transient, and the next call starts a new one', async () => {
    const crashing = createOfflineProviderThread({
      entry: new URL('./offline-thread.crash.test-worker.mjs', import.meta.url),
    });
    try {
      expect((await crashing.summarizeBlock(ENGLISH_BLOCK)).output).toEqual(
        (await inThread.summarizeBlock(ENGLISH_BLOCK)).output,
      );
      const crash = { ...ENGLISH_BLOCK, blockId: 'blk_crash' };
      await expect(crashing.summarizeBlock(crash)).rejects.toMatchObject({
        name: 'ModelError',
        code: 'thread_exit',
        transient: true,
      });
      expect((await crashing.summarizeBlock(CHINESE_BLOCK)).output).toEqual(
        (await inThread.summarizeBlock(CHINESE_BLOCK)).output,
      );
    } finally {
      await crashing.close();
    }
  });

  it('warm starts the thread and resolves once its code is loaded; calls then run on that thread', async () => {
    const warmed = createOfflineProviderThread();
    try {
      expect(warmed.threadId).toBeNull();
      await warmed.warm();
      const id = warmed.threadId;
      expect(id).toEqual(expect.any(Number));
      await warmed.warm(); // already ready: the same thread
      expect(warmed.threadId).toBe(id);
      expect((await warmed.summarizeBlock(ENGLISH_BLOCK)).output).toEqual(
        (await inThread.summarizeBlock(ENGLISH_BLOCK)).output,
      );
      expect(warmed.threadId).toBe(id);
    } finally {
      await warmed.close();
    }
    expect(warmed.threadId).toBeNull();
    await expect(warmed.warm()).rejects.toMatchObject({ code: 'closed', transient: false });
  });

  it.skipIf(!onLinux)(
    'runs at the nice value it was given, and only the thread does (ADR 0032)',
    async () => {
      const own = niceOf(process.pid);
      const lowered = createOfflineProviderThread({ nice: 7 });
      const plain = createOfflineProviderThread();
      try {
        expect(lowered.priority).toBeNull();
        await Promise.all([lowered.warm(), plain.warm()]);
        const priority = lowered.priority;
        expect(priority).toEqual({ tid: expect.any(Number), nice: 7 });
        const tid = (priority as { tid: number }).tid;
        expect(niceOf(tid)).toBe(7);
        // Its calls run there, at that priority.
        expect((await lowered.summarizeBlock(ENGLISH_BLOCK)).output).toEqual(
          (await inThread.summarizeBlock(ENGLISH_BLOCK)).output,
        );
        expect(niceOf(tid)).toBe(7);
        // The caller's thread and a thread started without a nice value keep the process's.
        expect(niceOf(process.pid)).toBe(own);
        expect(plain.priority).toEqual({ unchanged: 'nice 0 asked' });
      } finally {
        await Promise.all([lowered.close(), plain.close()]);
      }
      expect(lowered.priority).toBeNull();
      expect(() => createOfflineProviderThread({ nice: 20 })).toThrow(RangeError);
      expect(() => createOfflineProviderThread({ nice: -1 })).toThrow(RangeError);
    },
  );

  it('warm rejects as transient when the thread ends before it is ready', async () => {
    const dying = createOfflineProviderThread({
      entry: new URL('./offline-thread.exit.test-worker.mjs', import.meta.url),
    });
    try {
      await expect(dying.warm()).rejects.toMatchObject({
        name: 'ModelError',
        code: 'thread_exit',
        transient: true,
      });
      expect(dying.threadId).toBeNull();
    } finally {
      await dying.close();
    }
  });
});
