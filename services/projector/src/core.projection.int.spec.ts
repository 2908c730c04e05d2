import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideRecordTurn, type DecodedRecord } from '@stratagate/domain';
import { SpaceWriterService, newId } from '@stratagate/writer';
import { createPostgresLog, newRecord, type MessageLog } from '@stratagate/log';
import { dumpReadModel, type Database } from '@stratagate/store';
import { describeBackend, openTestDatabase } from '@stratagate/store/testing';
import { recordsUpToHead } from './testing.ts';
import { coreProjection } from './core.projection.ts';
import { drainMessageIndex } from './message-index.ts';
import { createProjector } from './runner.ts';

const space = { tenantId: 't', spaceId: 'proj' };

/** Messages of sealed turns (the open tail is not in raw search), sorted. */
function sealedMessageIds(dump: Record<string, unknown[]>): string[] {
  const sealed = new Set(
    (dump.turns as { turn_id: string; block_id: string | null }[])
      .filter((t) => t.block_id !== null)
      .map((t) => t.turn_id),
  );
  return (dump.messages as { message_id: string; turn_id: string }[])
    .filter((m) => sealed.has(m.turn_id))
    .map((m) => m.message_id)
    .sort();
}

describe(`core projection (${describeBackend()})`, () => {
  let database: Database;
  let log: MessageLog;
  let records: DecodedRecord[];

  beforeAll(async () => {
    database = await openTestDatabase('projection');
    log = await createPostgresLog(database);
    const writer = new SpaceWriterService(log);
    await writer.write(space, { occurredAt: '2023-05-01T10:00:00Z' }, () => [
      { type: 'SpaceConfigured', data: { blockSize: 2, decayLambda: 0.3 } },
    ]);
    for (let i = 1; i <= 5; i++) {
      await writer.write(space, { occurredAt: `2023-05-0${i}T10:00:00Z` }, (state) =>
        decideRecordTurn(state, {
          turnId: `turn-${i}`,
          threadId: 'main',
          occurredAt: `2023-05-0${i}T10:00:00+02:00`,
          messages: [
            { role: 'user', content: `Question ${i}? Okay.`, toolCalls: [] },
            {
              role: 'assistant',
              content: `Answer ${i}.`,
              toolCalls: [{ name: 'lookup', arguments: { q: 'secret' }, result: { ok: true } }],
            },
          ],
          newMessageId: () => newId('msg'),
          newBlockId: () => `blk_${i}`,
        }),
      );
    }
    await log.append(space, [
      newRecord(
        space,
        {
          type: 'BlockSummarized',
          data: {
            blockId: 'blk_2',
            attempt: 1,
            title: 'Questions one and two',
            tags: ['questions', 'answers'],
            summary: 'Two questions were answered.',
            keyPoints: ['Question 1', 'Question 2', 'Answer 2'],
            shouldExtract: false,
            model: { provider: 'test', promptVersion: 't@1' },
          },
        },
        { occurredAt: '2023-05-06T10:00:00Z' },
      ),
    ]);
    ({ records } = await recordsUpToHead(log));
  });
  afterAll(async () => {
    await log?.close();
    await database?.close();
  });

  it('builds messages, blocks with L3–L5 and ready state from the records', async () => {
    await coreProjection.migrate(database.db, 'rm_once');
    await database.db
      .transaction()
      .execute((trx) => coreProjection.handle(trx, 'rm_once', records));
    // The seals queued their blocks for raw-search indexing; the lane indexes them (ADR 0014).
    const queued = await dumpReadModel(database.db, 'rm_once');
    expect(queued.message_index_queue).toHaveLength(2);
    expect(queued.search_docs).toEqual([]);
    expect(await drainMessageIndex(database.db, 'rm_once')).toBe(2);
    expect(await drainMessageIndex(database.db, 'rm_once')).toBe(0);
    const dump = await dumpReadModel(database.db, 'rm_once');
    expect(dump.message_index_queue).toEqual([]);
    expect(
      (dump.search_docs as { doc_kind: string; doc_id: string }[])
        .filter((d) => d.doc_kind === 'message')
        .map((d) => d.doc_id)
        .sort(),
    ).toEqual(sealedMessageIds(dump));
    expect(sealedMessageIds(dump)).toHaveLength(8);
    expect(dump.messages).toHaveLength(10);
    expect(dump.blocks).toHaveLength(2);
    const [b2, b4] = dump.blocks as Record<string, unknown>[];
    expect(b2).toMatchObject({
      block_id: 'blk_2',
      status: 'ready',
      ready_position: 1,
      anchor_level: 5,
    });
    expect(b4).toMatchObject({ block_id: 'blk_4', status: 'pending', ready_position: null });
    expect(b2!.l5).toContain('secret');
    expect(b2!.l4).not.toContain('secret');
    expect(b2!.l3).not.toContain('Okay.');
  });

  it('applies the seals of a batch after its turns, and ends as one record at a time does', async () => {
    // One batch: the turns after blk_2's seal are applied before it (ADR 0028).
    const once = await dumpReadModel(database.db, 'rm_once');
    expect(once.spaces).toMatchObject([{ turn_counter: 5, block_count: 2 }]);
    const turns = once.turns as { block_id: string | null }[];
    expect(turns.map((t) => t.block_id)).toEqual(['blk_2', 'blk_2', 'blk_4', 'blk_4', null]);
    const single = createProjector({
      db: database.db,
      log,
      schema: 'rm_single',
      projection: coreProjection,
      batchSize: 1,
    });
    await single.catchUp();
    await drainMessageIndex(database.db, 'rm_single');
    expect(await dumpReadModel(database.db, 'rm_single')).toEqual(once);
  });

  it('is idempotent when a batch is delivered twice', async () => {
    await coreProjection.migrate(database.db, 'rm_twice');
    await database.db
      .transaction()
      .execute((trx) => coreProjection.handle(trx, 'rm_twice', records));
    await drainMessageIndex(database.db, 'rm_twice');
    const once = await dumpReadModel(database.db, 'rm_twice');
    await database.db
      .transaction()
      .execute((trx) => coreProjection.handle(trx, 'rm_twice', records));
    // Indexed blocks are not queued again.
    const twice = await dumpReadModel(database.db, 'rm_twice');
    expect(twice).toEqual(once);
    expect(twice).toEqual(await dumpReadModel(database.db, 'rm_once'));
  });

  it("the runner runs the log's upkeep after its batches (ADR 0029)", async () => {
    let upkeep = 0;
    const runner = createProjector({
      db: database.db,
      log: {
        ...log,
        maintain: async () => {
          upkeep += 1;
          await log.maintain!();
        },
      },
      schema: 'rm_upkeep',
      projection: coreProjection,
      batchSize: 4,
    });
    await runner.catchUp();
    // One upkeep per batch of at most four records.
    expect(upkeep).toBe(Math.ceil(records.length / 4));
  });

  it('the runner resumes from its checkpoint and matches a one-shot build', async () => {
    const runner = createProjector({
      db: database.db,
      log,
      schema: 'rm_runner',
      projection: coreProjection,
      batchSize: 3,
    });
    const position = await runner.catchUp();
    expect(position).toBe(records[records.length - 1]!.meta.position);
    // A second runner on the same checkpoint finds nothing to do and changes nothing.
    const again = createProjector({
      db: database.db,
      log,
      schema: 'rm_runner',
      projection: coreProjection,
    });
    expect(await again.catchUp()).toBe(position);
    expect(await dumpReadModel(database.db, 'rm_runner')).toEqual(
      await dumpReadModel(database.db, 'rm_once'),
    );
  });
});
