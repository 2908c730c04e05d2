import type { StoredRecord } from '@stratagate/domain';
import type { AnyDb } from '@stratagate/store';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { freshSpace, numbered } from './contract/fixtures.ts';
import type { MessageLog } from './message-log.ts';
import type { MessageSource, SourceBatch } from './message-source.ts';

export interface MessageSourceFixture {
  /** An empty log to append to. */
  log: MessageLog;
  /** Where the consumer's transactions run (its checkpoint lives there). */
  db: AnyDb;
  /** A source of `consumer`, ready to read: the same name is the same stored checkpoint. */
  source(consumer: string): Promise<MessageSource>;
  teardown(): Promise<void>;
}

export interface MessageSourceContractOptions {
  /** How long appended records may take to be readable. Default 20 s (a Kafka group joins). */
  timeoutMs?: number;
}

interface Consumed {
  batches: StoredRecord[][];
  applied: StoredRecord[];
}

/**
 * Applies batches as a consumer does (commit in a transaction, then settle) until `count` records
 * were applied or `timeoutMs` passed; `fail(n)` makes the n-th transaction roll back after its
 * records were handed over.
 */
async function consume(
  db: AnyDb,
  source: MessageSource,
  options: { count: number; batchSize: number; timeoutMs: number; fail?: (n: number) => boolean },
): Promise<Consumed> {
  const out: Consumed = { batches: [], applied: [] };
  const deadline = Date.now() + options.timeoutMs;
  let n = 0;
  while (out.applied.length < options.count && Date.now() < deadline) {
    const batch: SourceBatch | null = await source.read({
      from: null,
      batchSize: options.batchSize,
    });
    if (!batch) {
      await source.wait(50);
      continue;
    }
    n += 1;
    const taken: StoredRecord[] = [];
    try {
      const outcome = await db.transaction().execute((tx) =>
        batch.commit(tx, async (records) => {
          taken.push(...records);
          if (options.fail?.(n)) throw new Error(`transaction ${n} rolls back`);
        }),
      );
      batch.settle({ committed: outcome });
      if (!outcome.moved) {
        out.batches.push([...batch.records]);
        out.applied.push(...taken);
      }
    } catch (error) {
      batch.settle({ failed: error });
    }
  }
  return out;
}

const ids = (records: readonly StoredRecord[]) => records.map((r) => r.metadata.recordId);

/** Per space, the space versions in the order applied. */
function versionsBySpace(records: readonly StoredRecord[]): Map<string, number[]> {
  const by = new Map<string, number[]>();
  for (const r of records) {
    const key = `${r.metadata.tenantId}/${r.metadata.spaceId}`;
    by.set(key, [...(by.get(key) ?? []), r.spaceVersion]);
  }
  return by;
}

/**
 * The behaviour every MessageSource must show (ADR 0049), run against the table log and Kafka:
 * `factory` returns an empty log for every case.
 */
export function testMessageSource(
  name: string,
  factory: () => Promise<MessageSourceFixture>,
  options: MessageSourceContractOptions = {},
): void {
  const timeoutMs = options.timeoutMs ?? 20_000;
  let fixture: MessageSourceFixture | undefined;
  const opened: MessageSource[] = [];
  const f = () => {
    if (!fixture) throw new Error('no fixture: the factory has not run');
    return fixture;
  };
  const open = async (consumer: string) => {
    const source = await f().source(consumer);
    opened.push(source);
    return source;
  };
  const appendSpaces = async (spaces: number, rounds: number, perAppend = 1) => {
    const refs = Array.from({ length: spaces }, () => freshSpace());
    const appended: StoredRecord[] = [];
    // Interleaved: a space's records in several appends, other spaces' in between.
    for (let round = 0; round < rounds; round += 1) {
      for (const space of refs) {
        const result = await f().log.append(
          space,
          numbered(space, perAppend, round * perAppend + 1),
        );
        if (result.status === 'appended') appended.push(...result.records);
      }
    }
    return appended;
  };

  describe(`MessageSource contract: ${name}`, () => {
    beforeEach(async () => {
      fixture = await factory();
    });
    afterEach(async () => {
      for (const source of opened.splice(0)) await source.close();
      const current = fixture;
      fixture = undefined;
      await current?.log.close();
      await current?.teardown();
    });

    it(
      'reads from the checkpoint every record once, per space in order, in batches of at most batchSize',
      async () => {
        // Appends of several records: a fetch or a page holds more than a batch may take.
        const appended = await appendSpaces(3, 2, 3);
        const source = await open('reader');
        const got = await consume(f().db, source, { count: 18, batchSize: 2, timeoutMs });

        expect(got.batches.every((b) => b.length >= 1 && b.length <= 2)).toBe(true);
        expect(ids(got.applied).sort()).toEqual(ids(appended).sort());
        for (const versions of versionsBySpace(got.applied).values()) {
          expect(versions).toEqual([1, 2, 3, 4, 5, 6]);
        }
        if (source.capabilities.globalOrder) {
          const positions = got.applied.map((r) => r.position);
          expect(positions).toEqual([...positions].sort((a, b) => a - b));
        }
        // Applied through the end: nothing readable, caught up, the checkpoint at the head.
        expect(await source.read({ from: null, batchSize: 10 })).toBeNull();
        expect(await source.caughtUp()).toBe(true);
        expect(await source.head()).toBe((await source.checkpoint()).position);
      },
      timeoutMs * 2,
    );

    it(
      'resumes from the stored checkpoint: no record skipped or applied twice across runs',
      async () => {
        const first = await appendSpaces(2, 4);
        const before = await open('resumer');
        const untouched = await (await open('untouched')).checkpoint();
        const one = await consume(f().db, before, { count: 8, batchSize: 3, timeoutMs });
        const stored = await before.checkpoint();
        await before.close();

        const second = await appendSpaces(2, 3);
        const after = await open('resumer');
        expect((await after.checkpoint()).position).toBe(stored.position);
        const two = await consume(f().db, after, { count: 6, batchSize: 3, timeoutMs });

        const all = [...one.applied, ...two.applied];
        expect(ids(all).sort()).toEqual(ids([...first, ...second]).sort());
        expect(ids(two.applied).sort()).toEqual(ids(second).sort());
        // Checkpoints compare through the source only.
        expect(after.behind(untouched, stored)).toBeGreaterThan(0);
        expect(after.behind(stored, untouched)).toBe(0);
        expect(after.behind(stored, await after.checkpoint())).toBeGreaterThan(0);
      },
      timeoutMs * 3,
    );

    it(
      'a batch whose transaction rolls back is offered again; nothing is skipped',
      async () => {
        const appended = await appendSpaces(2, 3);
        const source = await open('failing');
        const got = await consume(f().db, source, {
          count: 6,
          batchSize: 2,
          timeoutMs: timeoutMs * 2,
          fail: (n) => n === 1,
        });
        expect(ids(got.applied).sort()).toEqual(ids(appended).sort());
      },
      timeoutMs * 3,
    );

    it(
      'an aborted signal: read returns nothing and wait returns at once',
      async () => {
        await appendSpaces(1, 2);
        const source = await open('aborted');
        const stop = new AbortController();
        stop.abort();
        expect(await source.read({ from: null, batchSize: 10, signal: stop.signal })).toBeNull();
        // Would outlast the case's timeout if the signal were ignored.
        await source.wait(timeoutMs * 10, stop.signal);
        const got = await consume(f().db, source, { count: 2, batchSize: 10, timeoutMs });
        expect(got.applied).toHaveLength(2);
      },
      timeoutMs,
    );

    it(
      'hands its checkpoint over to another consumer, which carries on from there',
      async () => {
        const first = await appendSpaces(2, 2);
        const builder = await open('builder');
        await consume(f().db, builder, { count: 4, batchSize: 10, timeoutMs });
        const successor = await open('successor');
        await f()
          .db.transaction()
          .execute((tx) => builder.handOver(tx, successor));
        expect(successor.behind(await successor.checkpoint(), await builder.checkpoint())).toBe(0);

        const second = await appendSpaces(1, 2);
        const got = await consume(f().db, successor, { count: 2, batchSize: 10, timeoutMs });
        expect(ids(got.applied).sort()).toEqual(ids(second).sort());
        expect(ids(got.applied).some((id) => ids(first).includes(id))).toBe(false);
      },
      timeoutMs * 3,
    );
  });
}
