import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideRecordTurn } from '@stratagate/domain';
import { SpaceWriterService, newId } from '@stratagate/writer';
import { createPostgresLog, type MessageLog } from '@stratagate/log';
import { dumpReadModel, type Database } from '@stratagate/store';
import { describeBackend, openTestDatabase } from '@stratagate/store/testing';
import { coreProjection } from './core.projection.ts';
import { visibleHead } from './testing.ts';
import { createProjector, YIELD_BACKLOG } from './runner.ts';

const space = { tenantId: 't', spaceId: 'backlog' };

/** One turn of thread `main` with one user message, through the ingest decision. */
function writeTurn(writer: SpaceWriterService, turnId: string, ms: number, content: string) {
  const at = new Date(ms).toISOString();
  return writer.write(space, { occurredAt: at }, (state) =>
    decideRecordTurn(state, {
      turnId,
      threadId: 'main',
      occurredAt: at,
      messages: [{ role: 'user', content, toolCalls: [] }],
      newMessageId: () => newId('msg'),
      newBlockId: () => `blk_${turnId}`,
    }),
  );
}

describe(`projector: giving way to a waiting append only while it keeps up, ADR 0023 (${describeBackend()})`, () => {
  let database: Database;
  let log: MessageLog;

  beforeAll(async () => {
    database = await openTestDatabase('yield');
    log = await createPostgresLog(database);
    const writer = new SpaceWriterService(log);
    await writer.write(space, { occurredAt: '2023-05-01T10:00:00Z' }, () => [
      { type: 'SpaceConfigured', data: { blockSize: 40, decayLambda: 0.3 } },
    ]);
    for (let i = 1; i <= YIELD_BACKLOG + 50; i++) {
      await writeTurn(
        writer,
        `turn-${i}`,
        Date.UTC(2023, 4, 1, 10, 0, i),
        `Note ${i} about the garden.`,
      );
    }
  });
  afterAll(async () => {
    await log?.close();
    await database?.close();
  });

  it('behind more than YIELD_BACKLOG records it holds on (backpressure); caught up, it gives way', async () => {
    const batches: number[] = [];
    let waiting = true;
    const projector = createProjector({
      db: database.db,
      log,
      schema: 'rm_backlog',
      projection: coreProjection,
      // Room for the whole backlog in one batch.
      batchSize: 2 * YIELD_BACKLOG,
      yieldWhen: () => waiting,
      onBatch: (b) => batches.push(b.records),
    });
    // On a shared server, tailing trails the head while other tests' transactions run: wait
    // until all of it is visible, or a batch would end at the horizon instead of the backlog.
    const head = await visibleHead(log);
    expect(head).toBeGreaterThan(YIELD_BACKLOG + 1);
    expect(await projector.catchUp()).toBe(head);
    // The first batch does not know the backlog yet and stops after one record; then the
    // projector sees it is far behind and takes the rest in one batch despite the waiting caller.
    expect(batches).toEqual([1, head - 1]);

    // Caught up: each new record comes in a batch of its own while a caller waits.
    const writer = new SpaceWriterService(log);
    for (let i = 1; i <= 3; i++) {
      await writeTurn(writer, `later-${i}`, Date.UTC(2023, 4, 2, 10, 0, i), `Later note ${i}.`);
    }
    const later = await visibleHead(log);
    batches.length = 0;
    expect(await projector.catchUp()).toBe(later);
    expect(batches).toEqual([1, 1, 1]);

    // The same as a projector that never gave way.
    waiting = false;
    const plain = createProjector({
      db: database.db,
      log,
      schema: 'rm_plain',
      projection: coreProjection,
    });
    await plain.catchUp();
    expect(await dumpReadModel(database.db, 'rm_backlog')).toEqual(
      await dumpReadModel(database.db, 'rm_plain'),
    );
  });
});
