import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewRecord, SpaceRef } from '@stratagate/domain';
import { createPostgresLog, type MessageLog } from '@stratagate/log';
import { importingSpaces, migrateSpaceImports, type Database } from '@stratagate/store';
import { describeBackend, openTestDatabase } from '@stratagate/store/testing';
import { exportSpace } from './export-space.ts';
import { importSpace } from './import-space.ts';

const SOURCE: SpaceRef = { tenantId: 't1', spaceId: 'source' };

function turnRecord(space: SpaceRef, n: number, causationId?: string): NewRecord {
  return {
    type: 'TurnRecorded',
    data: {
      turnId: `turn-${n}`,
      threadId: 'main',
      spaceTurn: n,
      threadTurn: n,
      occurredAt: '2023-05-01T10:00:00Z',
      messages: [{ messageId: `msg_${n}`, role: 'user', content: `message ${n}`, toolCalls: [] }],
    },
    metadata: {
      recordId: `source-record-${n}`,
      schemaVersion: 1,
      tenantId: space.tenantId,
      spaceId: space.spaceId,
      threadId: 'main',
      occurredAt: '2023-05-01T10:00:00Z',
      idempotencyKey: `turn:turn-${n}`,
      ...(causationId ? { causationId } : {}),
    },
  };
}

async function text(log: MessageLog, space: SpaceRef): Promise<string> {
  let out = '';
  for await (const line of exportSpace(log, space, { now: () => new Date(0), pageSize: 7 })) {
    out += line;
  }
  return out;
}

/** A log whose appends fail from the `failAt`-th on, as a crash in the middle of an import. */
function failingAfter(log: MessageLog, failAt: number): MessageLog {
  let appends = 0;
  return {
    ...log,
    append: async (...args) => {
      appends += 1;
      if (appends >= failAt) throw new Error('connection lost');
      return log.append(...args);
    },
  };
}

describe(`importing a space (${describeBackend()})`, () => {
  let database: Database;
  let log: MessageLog;
  let file = '';

  beforeAll(async () => {
    database = await openTestDatabase('import-space');
    log = await createPostgresLog(database);
    await migrateSpaceImports(database.db);
    for (let n = 1; n <= 30; n += 3) {
      await log.append(SOURCE, [
        turnRecord(SOURCE, n),
        turnRecord(SOURCE, n + 1, `source-record-${n}`),
        turnRecord(SOURCE, n + 2, 'request-outside-the-log'),
      ]);
    }
    file = await text(log, SOURCE);
  });
  afterAll(async () => {
    await log?.close();
    await database?.close();
  });

  it('resumes an interrupted import where it stopped, and lets the consolidator back in after', async () => {
    const target = { tenantId: 't2', spaceId: 'copy' };
    const options = {
      db: database.db,
      target,
      open: () => [file],
      chunkRecords: 8,
    };
    await expect(importSpace({ ...options, log: failingAfter(log, 3) })).rejects.toThrow(
      'connection lost',
    );
    expect(await log.spaceVersion(target)).toBe(16);
    expect(await importingSpaces(database.db)).toEqual(new Set(['t2/copy']));

    const progress: string[] = [];
    const result = await importSpace({
      ...options,
      log,
      onProgress: (p) => progress.push(`${p.phase} ${p.done}`),
    });
    expect(result).toMatchObject({ records: 30, spaceVersion: 30, resumedFrom: 16 });
    expect(progress).toEqual(['importing 24', 'importing 30']);
    expect(await importingSpaces(database.db)).toEqual(new Set());

    const copied = await log.readSpace(target, 0, 100);
    const original = await log.readSpace(SOURCE, 0, 100);
    expect(copied.map((r) => r.data)).toEqual(original.map((r) => r.data));
    expect(copied.map((r) => r.metadata.idempotencyKey)).toEqual(
      original.map((r) => r.metadata.idempotencyKey),
    );
    // New record ids, the same on every run; causation follows a record of the file, and an id
    // from outside the file stays.
    const ids = new Set(copied.map((r) => r.metadata.recordId));
    expect(ids.size).toBe(30);
    for (const r of original) expect(ids.has(r.metadata.recordId)).toBe(false);
    expect(copied[1]!.metadata.causationId).toBe(copied[0]!.metadata.recordId);
    expect(copied[2]!.metadata.causationId).toBe('request-outside-the-log');
    expect(copied.every((r) => r.metadata.tenantId === 't2' && r.metadata.spaceId === 'copy')).toBe(
      true,
    );
  });

  it('refuses a space whose records are not the start of the file', async () => {
    const target = { tenantId: 't2', spaceId: 'other' };
    const own = turnRecord(target, 1);
    await log.append(target, [{ ...own, metadata: { ...own.metadata, recordId: 'its-own' } }]);
    await expect(
      importSpace({ log, db: database.db, target, open: () => [file] }),
    ).rejects.toMatchObject({ code: 'space_not_empty', status: 409 });
    expect(await log.spaceVersion(target)).toBe(1);
    expect(await importingSpaces(database.db)).toEqual(new Set());
  });

  it('stops when another writer appends to the space meanwhile', async () => {
    const target = { tenantId: 't2', spaceId: 'raced' };
    let raced = false;
    const racing: MessageLog = {
      ...log,
      append: async (space, records, options) => {
        if (!raced && space.spaceId === 'raced' && (options?.expectedVersion ?? 0) > 0) {
          raced = true;
          const intruder = turnRecord(target, 99);
          await log.append(target, [
            { ...intruder, metadata: { ...intruder.metadata, recordId: 'intruder' } },
          ]);
        }
        return log.append(space, records, options);
      },
    };
    await expect(
      importSpace({ log: racing, db: database.db, target, open: () => [file], chunkRecords: 10 }),
    ).rejects.toMatchObject({ code: 'space_changed', status: 409 });
    expect(await log.spaceVersion(target)).toBe(11);
  });
});
