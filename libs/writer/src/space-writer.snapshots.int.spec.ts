import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  decideRecordTurn,
  initialSpaceWriterState,
  snapshotSpaceWriter,
  type SpaceRef,
} from '@stratagate/domain';
import { createPostgresLog, type MessageLog } from '@stratagate/log';
import { type Database } from '@stratagate/store';
import { describeBackend, openTestDatabase } from '@stratagate/store/testing';
import { newId, SpaceWriterService, type SpaceWriterOptions } from './space-writer.ts';
import { WriterSnapshotStore, type WriterSnapshots } from './writer-snapshots.ts';

/** The log, counting the records `readSpace` returns (what a writer folds). */
function counting(log: MessageLog) {
  const counter = { read: 0 };
  const wrapped: MessageLog = Object.create(log) as MessageLog;
  Object.defineProperty(wrapped, 'readSpace', {
    value: async (...args: Parameters<MessageLog['readSpace']>) => {
      const page = await log.readSpace(...args);
      counter.read += page.length;
      return page;
    },
  });
  return { log: wrapped, counter };
}

function postTurn(writer: SpaceWriterService, space: SpaceRef, threadId: string, n: number) {
  const at = new Date(Date.UTC(2023, 4, 1, 10, 0, n)).toISOString();
  return writer.write(space, { occurredAt: at }, (state) =>
    decideRecordTurn(state, {
      turnId: `${threadId}-turn-${n}`,
      threadId,
      occurredAt: at,
      messages: [{ role: 'user', content: `Note ${n} on ${threadId}.`, toolCalls: [] }],
      newMessageId: () => newId('msg'),
      newBlockId: () => newId('blk'),
    }),
  );
}

describe(`space writer snapshots, ADR 0024 (${describeBackend()})`, () => {
  let database: Database;
  let log: MessageLog;
  let store: WriterSnapshotStore;

  beforeAll(async () => {
    database = await openTestDatabase('writer_snapshots');
    log = await createPostgresLog(database);
    store = new WriterSnapshotStore(database.db);
    await store.migrate();
    await store.migrate(); // idempotent
  });
  afterAll(async () => {
    await log?.close();
    await database?.close();
  });

  it('a new writer folds only the records after the last snapshot and decides as a full fold does', async () => {
    const space = { tenantId: 't', spaceId: 'snap' };
    const options: SpaceWriterOptions = { snapshots: store, snapshotEvery: 20 };
    const first = new SpaceWriterService(log, options);
    await first.write(space, { occurredAt: '2023-05-01T10:00:00Z' }, () => [
      { type: 'SpaceConfigured', data: { blockSize: 4, decayLambda: 0.3 } },
    ]);
    for (let n = 1; n <= 45; n++) await postTurn(first, space, n % 3 === 0 ? 'b' : 'a', n);
    await first.flush();
    const version = await log.spaceVersion(space);
    const saved = await store.load(log.name, space);
    expect(saved).not.toBeNull();
    // At most snapshotEvery records behind the log, never ahead of it.
    expect(version - saved!.version).toBeLessThan(20);
    expect(saved!.version).toBeGreaterThan(0);

    // As after a restart: a new writer with the same store, and one without snapshots.
    const withSnapshots = counting(log);
    const restarted = new SpaceWriterService(withSnapshots.log, options);
    const plain = counting(log);
    const folding = new SpaceWriterService(plain.log);
    expect(snapshotSpaceWriter(await restarted.state(space))).toEqual(
      snapshotSpaceWriter(await folding.state(space)),
    );
    expect(withSnapshots.counter.read).toBe(version - saved!.version);
    expect(plain.counter.read).toBe(version);

    // The next turns are numbered and sealed alike by both.
    const a = await postTurn(restarted, space, 'a', 46);
    const afterA = snapshotSpaceWriter(a.state);
    const b = await folding.state(space);
    expect(snapshotSpaceWriter(b)).toEqual(afterA);
    expect(a.status === 'appended' && a.records[0]!.spaceVersion).toBe(version + 1);
  });

  it('the first fold of an existing log is saved, so the start after it reads almost nothing', async () => {
    const space = { tenantId: 't', spaceId: 'existing' };
    // Written before snapshots existed (no store).
    const old = new SpaceWriterService(log);
    for (let n = 1; n <= 30; n++) await postTurn(old, space, 'a', n);
    const upgraded = new SpaceWriterService(log, { snapshots: store, snapshotEvery: 20 });
    await upgraded.state(space);
    await upgraded.flush();
    expect((await store.load(log.name, space))?.version).toBe(await log.spaceVersion(space));
    const next = counting(log);
    await new SpaceWriterService(next.log, { snapshots: store }).state(space);
    expect(next.counter.read).toBe(0);
  });

  it('a snapshot ahead of the log is discarded and the log folded: the write still succeeds', async () => {
    const space = { tenantId: 't', spaceId: 'ahead' };
    const plain = new SpaceWriterService(log);
    for (let n = 1; n <= 3; n++) await postTurn(plain, space, 'a', n);
    // A snapshot the log does not back (as if the log were emptied under the same database).
    const bogus = initialSpaceWriterState();
    bogus.version = 50;
    bogus.turnCounter = 40;
    await store.save(log.name, space, snapshotSpaceWriter(bogus));

    const writer = new SpaceWriterService(log, { snapshots: store, snapshotEvery: 1000 });
    const outcome = await postTurn(writer, space, 'a', 4);
    expect(outcome.status).toBe('appended');
    const [turn] = outcome.status === 'appended' ? outcome.records : [];
    expect(turn!.spaceVersion).toBe(4);
    expect(outcome.state.turnCounter).toBe(4);
    expect(await store.load(log.name, space)).toBeNull();
  });

  it('a snapshot of another format or another log is not used', async () => {
    const space = { tenantId: 't', spaceId: 'snap' };
    expect(await store.load('another-log', space)).toBeNull();
    const { sql } = await import('kysely');
    await sql`update writer.space_snapshots set format = 0 where space_id = 'snap'`.execute(
      database.db,
    );
    expect(await store.load(log.name, space)).toBeNull();
    const reads = counting(log);
    await new SpaceWriterService(reads.log, { snapshots: store }).state(space);
    expect(reads.counter.read).toBe(await log.spaceVersion(space));
  });

  it('keeps at most maxStates spaces in memory; a dropped one is snapshotted and comes back short', async () => {
    const spaces = ['lru-1', 'lru-2', 'lru-3'].map((spaceId) => ({ tenantId: 't', spaceId }));
    const reads = counting(log);
    const writer = new SpaceWriterService(reads.log, {
      snapshots: store,
      snapshotEvery: 1000,
      maxStates: 2,
    });
    for (let n = 1; n <= 5; n++) {
      for (const space of spaces) await postTurn(writer, space, 'a', n);
    }
    expect(writer.cachedSpaces).toBe(2);
    await writer.flush();
    // Each space was dropped after its own write (the other two were more recent): each drop
    // saved a snapshot at the space's version, so every next write read nothing before deciding.
    expect(reads.counter.read).toBe(0);
    for (const space of spaces) {
      expect((await store.load(log.name, space))?.version).toBeGreaterThanOrEqual(4);
    }
    // Decisions are those of a full fold.
    const plain = new SpaceWriterService(log);
    for (const space of spaces) {
      const outcome = await postTurn(writer, space, 'a', 6);
      expect(snapshotSpaceWriter(outcome.state)).toEqual(
        snapshotSpaceWriter(await plain.state(space)),
      );
      expect(outcome.state.turnCounter).toBe(6);
    }
  });

  it('a snapshot that cannot be saved never fails the write; it is tried again later', async () => {
    const space = { tenantId: 't', spaceId: 'failing' };
    const errors: unknown[] = [];
    let fail = true;
    const saves: number[] = [];
    const flaky: WriterSnapshots = {
      load: (name, s) => store.load(name, s),
      discard: (name, s) => store.discard(name, s),
      save: async (name, s, snapshot) => {
        if (fail) throw new Error('disk full');
        saves.push(snapshot.version);
        await store.save(name, s, snapshot);
      },
    };
    const writer = new SpaceWriterService(log, {
      snapshots: flaky,
      snapshotEvery: 2,
      onSnapshotError: (e) => errors.push(e),
    });
    for (let n = 1; n <= 3; n++) {
      expect((await postTurn(writer, space, 'a', n)).status).toBe('appended');
    }
    await writer.flush();
    expect(errors.length).toBeGreaterThan(0);
    expect((errors[0] as Error).message).toBe('disk full');
    fail = false;
    await postTurn(writer, space, 'a', 4);
    await writer.flush();
    expect(saves).toEqual([4]);
    expect((await store.load(log.name, space))?.version).toBe(4);
  });
});
