import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { decideRecordTurn, type DecodedRecord } from '@stratagate/domain';
import { SpaceWriterService, newId } from '@stratagate/writer';
import { createPostgresLog, type MessageLog } from '@stratagate/log';
import { dumpReadModel, type Database } from '@stratagate/store';
import { describeBackend, openTestDatabase } from '@stratagate/store/testing';
import { storeCheckpoint } from './checkpoints.ts';
import { recordsUpToHead } from './testing.ts';
import { coreProjection, coreProjectionDefinition } from './core.projection.ts';
import { appliedThrough, drainMessageIndex } from './message-index.ts';
import { versionRulesOf, type Projection } from './projection.ts';
import { projectionStatus } from './rebuild.ts';
import { ensureProjectionVersion, migrateProjectionControl } from './versions.ts';
import { createProjector } from './runner.ts';

const space = { tenantId: 't', spaceId: 'lane' };

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 20_000) {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe(`raw-search indexing lane, ADR 0014 (${describeBackend()})`, () => {
  let database: Database;
  let log: MessageLog;
  let records: DecodedRecord[];
  let head: number;

  const queued = async (schema: string) =>
    Number(
      (
        await sql<{
          n: number;
        }>`select count(*)::int as n from ${sql.id(schema, 'message_index_queue')}`.execute(
          database.db,
        )
      ).rows[0]!.n,
    );
  const messageDocs = async (schema: string) =>
    Number(
      (
        await sql<{ n: number }>`select count(*)::int as n from ${sql.id(schema, 'search_docs')}
          where doc_kind = 'message'`.execute(database.db)
      ).rows[0]!.n,
    );
  /** Applies every record in one batch and moves the checkpoint, as a runner's batch would. */
  async function projectWithoutLane(schema: string) {
    await coreProjection.migrate(database.db, schema);
    await database.db.transaction().execute(async (trx) => {
      await coreProjection.handle(trx, schema, records);
      expect(await storeCheckpoint(trx, schema, coreProjection.name, 0, head)).toBe('ok');
    });
  }

  beforeAll(async () => {
    database = await openTestDatabase('lane');
    log = await createPostgresLog(database);
    const writer = new SpaceWriterService(log);
    await writer.write(space, { occurredAt: '2023-05-01T10:00:00Z' }, () => [
      { type: 'SpaceConfigured', data: { blockSize: 2, decayLambda: 0.3 } },
    ]);
    // Two threads of four turns: four blocks of two turns, eight sealed messages each thread.
    for (let i = 1; i <= 8; i++) {
      await writer.write(space, { occurredAt: `2023-05-0${i}T10:00:00Z` }, (state) =>
        decideRecordTurn(state, {
          turnId: `turn-${i}`,
          threadId: i % 2 ? 'odd' : 'even',
          occurredAt: `2023-05-0${i}T10:00:00Z`,
          messages: [
            { role: 'user', name: 'Mel', content: `Did you paint the lake ${i}?`, toolCalls: [] },
            { role: 'assistant', content: `Painting ${i} shows a sunset.`, toolCalls: [] },
          ],
          newMessageId: () => newId('msg'),
          newBlockId: () => `blk_${i}`,
        }),
      );
    }
    ({ head, records } = await recordsUpToHead(log));
  });
  afterAll(async () => {
    await log?.close();
    await database?.close();
  });

  it('a seal queues its block; the read model counts as applied before the oldest queued seal', async () => {
    await projectWithoutLane('rm_queued');
    const seals = records.filter((r) => r.type === 'BlockSealed');
    expect(seals).toHaveLength(4);
    expect(await queued('rm_queued')).toBe(4);
    expect(await messageDocs('rm_queued')).toBe(0);
    expect(await appliedThrough(database.db, 'rm_queued', head)).toBe(seals[0]!.meta.position - 1);

    const termsOf = async (turnId: string, seq: number) =>
      (
        await sql<{ terms: string[] }>`
          select d.terms from ${sql.id('rm_queued', 'search_docs')} d
          join ${sql.id('rm_queued', 'messages')} m on m.message_id = d.doc_id
          where m.turn_id = ${turnId} and m.seq = ${seq}`.execute(database.db)
      ).rows[0]!.terms;
    // One slice of two blocks: applied through the position before the third seal.
    expect(await drainMessageIndex(database.db, 'rm_queued', 2)).toBe(2);
    expect(await appliedThrough(database.db, 'rm_queued', head)).toBe(seals[2]!.meta.position - 1);
    // A message's reply in its block is its context at once ("Painting 1 …" is answered by
    // "Did you paint the lake 3?"); the block's last message has no reply sealed yet.
    expect(await termsOf('turn-1', 1)).toEqual(expect.arrayContaining(['word:1', 'word:3']));
    expect(await termsOf('turn-3', 1)).not.toContain('word:5');
    expect(await drainMessageIndex(database.db, 'rm_queued', 2)).toBe(2);
    // Once the thread's next block is indexed, that last message is found by its reply too.
    expect(await termsOf('turn-3', 1)).toEqual(expect.arrayContaining(['word:3', 'word:5']));
    expect(await termsOf('turn-7', 1)).not.toContain('word:9');
    expect(await drainMessageIndex(database.db, 'rm_queued', 2)).toBe(0);
    expect(await appliedThrough(database.db, 'rm_queued', head)).toBe(head);
    expect(await messageDocs('rm_queued')).toBe(16);
    // The first message of a block carries the thread's previous message as context.
    const third = await sql<{ terms: string[] }>`
      select d.terms from ${sql.id('rm_queued', 'search_docs')} d
      join ${sql.id('rm_queued', 'messages')} m on m.message_id = d.doc_id
      where m.turn_id = 'turn-5' and m.seq = 0`.execute(database.db);
    // turn-5's first message answers turn-3's reply in thread 'odd' ("Painting 3 shows …").
    expect(third.rows[0]!.terms).toEqual(expect.arrayContaining(['word:3', 'word:5']));
  });

  it('a block with more text than a slice takes is indexed over several slices, each going on after the last (ADR 0043)', async () => {
    await projectWithoutLane('rm_pieces');
    const firstSeal = records.find((r) => r.type === 'BlockSealed')!.meta.position;
    // 30 characters: about one message of this log per slice.
    const drain = () => drainMessageIndex(database.db, 'rm_pieces', 32, undefined, undefined, 30);
    expect(await drain()).toBe(1);
    // Part of the first block is indexed; the block stays queued and holds the space back.
    expect(await messageDocs('rm_pieces')).toBeGreaterThan(0);
    expect(await messageDocs('rm_pieces')).toBeLessThan(4);
    expect(await queued('rm_pieces')).toBe(4);
    expect(await appliedThrough(database.db, 'rm_pieces', head, space)).toBe(firstSeal - 1);
    let slices = 1;
    while ((await drain()) > 0) slices++;
    // Sixteen messages, one or two a slice; never one slice for the whole queue.
    expect(slices).toBeGreaterThanOrEqual(8);
    expect(await queued('rm_pieces')).toBe(0);
    expect(await dumpReadModel(database.db, 'rm_pieces')).toEqual(
      await dumpReadModel(database.db, 'rm_queued'),
    );
  });

  it('projections status counts the queued blocks in the lag', async () => {
    await migrateProjectionControl(database.db);
    await ensureProjectionVersion(
      database.db,
      'rm_status',
      'core',
      versionRulesOf(coreProjectionDefinition, {}),
    );
    await projectWithoutLane('rm_status');
    const firstSeal = records.find((r) => r.type === 'BlockSealed')!.meta.position;
    const [queued] = await projectionStatus(database.db, log, 'rm_status');
    expect(queued!.live).toMatchObject({
      schema: 'rm_status',
      position: head,
      queued: 4,
      applied: firstSeal - 1,
      lag: head - firstSeal + 1,
    });
    while ((await drainMessageIndex(database.db, 'rm_status')) > 0);
    const [drained] = await projectionStatus(database.db, log, 'rm_status');
    expect(drained!.live).toMatchObject({ position: head, queued: 0, applied: head, lag: 0 });
  });

  it('slices drained side by side index every block once', async () => {
    await projectWithoutLane('rm_racing');
    const drained = await Promise.all([
      drainMessageIndex(database.db, 'rm_racing', 1),
      drainMessageIndex(database.db, 'rm_racing', 3),
      drainMessageIndex(database.db, 'rm_racing', 2),
    ]);
    expect(drained.reduce((a, b) => a + b, 0)).toBe(4);
    expect(await queued('rm_racing')).toBe(0);
    const once = await dumpReadModel(database.db, 'rm_queued');
    const racing = await dumpReadModel(database.db, 'rm_racing');
    expect(racing.search_docs).toEqual(once.search_docs);
    expect(racing.search_postings).toEqual(once.search_postings);
    expect(racing.search_terms).toEqual(once.search_terms);
    expect(racing.search_stats).toEqual(once.search_stats);
  });

  it('a started projector drains what was queued before it ran, and retries a failed slice', async () => {
    // As after a crash between the seal's commit and the lane: the checkpoint is at the head.
    await projectWithoutLane('rm_restart');
    const errors: unknown[] = [];
    let failures = 1;
    const upkeep: string[] = [];
    const flaky: Projection = {
      ...coreProjection,
      // The lane's writes get the same upkeep (VACUUM of grown tables) as a batch's.
      afterCommit: async (db, schema) => {
        upkeep.push(schema);
        await coreProjection.afterCommit!(db, schema);
      },
      deferred: {
        ...coreProjection.deferred!,
        drain: async (db, schema) => {
          if (failures-- > 0) throw new Error('lane slice failed');
          return drainMessageIndex(db, schema);
        },
      },
    };
    const projector = createProjector({
      db: database.db,
      log,
      schema: 'rm_restart',
      projection: flaky,
      onError: (e) => errors.push(e),
    });
    projector.start();
    try {
      await until(async () => (await queued('rm_restart')) === 0, 'the queue to drain');
      await until(async () => upkeep.length > 0, 'the upkeep after the drain');
    } finally {
      await projector.stop();
    }
    // No batch was applied (the checkpoint was at the head): the upkeep followed the lane.
    expect(upkeep).toEqual(['rm_restart']);
    expect(errors.map((e) => (e as Error).message)).toEqual(['lane slice failed']);
    expect(await dumpReadModel(database.db, 'rm_restart')).toEqual(
      await dumpReadModel(database.db, 'rm_queued'),
    );
  });

  it('catchUp returns once the lane is done: equal to a one-shot build', async () => {
    const projector = createProjector({
      db: database.db,
      log,
      schema: 'rm_runner',
      projection: coreProjection,
      batchSize: 3,
    });
    expect(await projector.catchUp()).toBe(head);
    expect(await queued('rm_runner')).toBe(0);
    expect(await dumpReadModel(database.db, 'rm_runner')).toEqual(
      await dumpReadModel(database.db, 'rm_queued'),
    );
  });

  it('with a time budget (embedded store, ADR 0019), batches and lane slices shrink to fit it and the result is the same', async () => {
    const batches: number[] = [];
    const limits: (number | undefined)[] = [];
    const held: number[] = [];
    const watched: Projection = {
      ...coreProjection,
      deferred: {
        ...coreProjection.deferred!,
        drain: (db, schema, slice) => {
          limits.push(slice?.limit);
          return coreProjection.deferred!.drain(db, schema, {
            ...slice,
            held: (ms) => {
              held.push(ms);
              slice?.held?.(ms);
            },
          });
        },
      },
    };
    // A budget no transaction can meet: every batch and every slice is held to one item.
    const projector = createProjector({
      db: database.db,
      log,
      schema: 'rm_budget',
      projection: watched,
      batchBudget: { budgetMs: 0.001 },
      batchSize: 8,
      onBatch: (b) => batches.push(b.records),
    });
    expect(await projector.catchUp()).toBe(head);
    expect(head).toBeGreaterThan(8);
    // The first batch takes the initial size (the maximum here, 8); every batch measured after
    // it takes one record.
    expect(batches).toEqual([8, ...Array<number>(head - 8).fill(1)]);
    expect(limits[0]).toBe(4);
    expect(limits.slice(1).every((n) => n === 1)).toBe(true);
    expect(held.length).toBeGreaterThan(0);
    expect(held.every((ms) => ms >= 0)).toBe(true);
    expect(await queued('rm_budget')).toBe(0);
    expect(await dumpReadModel(database.db, 'rm_budget')).toEqual(
      await dumpReadModel(database.db, 'rm_queued'),
    );
  });

  it('with a caller always waiting (ADR 0023), every batch stops after one record and every slice after one block, and the result is the same', async () => {
    const batches: number[] = [];
    const slices: number[] = [];
    const watched: Projection = {
      ...coreProjection,
      deferred: {
        ...coreProjection.deferred!,
        drain: async (db, schema, slice) => {
          const n = await coreProjection.deferred!.drain(db, schema, slice);
          if (n > 0) slices.push(n);
          return n;
        },
      },
    };
    let asked = 0;
    const projector = createProjector({
      db: database.db,
      log,
      schema: 'rm_yield',
      projection: watched,
      // Large batches and slices: only the early stop keeps them to one item.
      batchSize: 500,
      yieldWhen: () => {
        asked++;
        return true;
      },
      onBatch: (b) => batches.push(b.records),
    });
    expect(await projector.catchUp()).toBe(head);
    expect(asked).toBeGreaterThan(0);
    expect(batches).toEqual(Array<number>(head).fill(1));
    // Two blocks per thread, two threads: four slices of one block.
    expect(slices).toEqual(Array<number>(4).fill(1));
    expect(await queued('rm_yield')).toBe(0);
    expect(await dumpReadModel(database.db, 'rm_yield')).toEqual(
      await dumpReadModel(database.db, 'rm_queued'),
    );

    // Nobody waiting: one batch takes the whole log, one slice every queued block.
    batches.length = 0;
    slices.length = 0;
    const quiet = createProjector({
      db: database.db,
      log,
      schema: 'rm_no_yield',
      projection: watched,
      batchSize: 500,
      yieldWhen: () => false,
      onBatch: (b) => batches.push(b.records),
    });
    expect(await quiet.catchUp()).toBe(head);
    expect(batches).toEqual([head]);
    expect(slices).toEqual([4]);
  });
});

describe(`raw-search indexing lane over several spaces (${describeBackend()})`, () => {
  let database: Database;
  let log: MessageLog;

  beforeAll(async () => {
    database = await openTestDatabase('lane_spaces');
    log = await createPostgresLog(database);
    const writer = new SpaceWriterService(log);
    for (const spaceId of ['a', 'b']) {
      await writer.write({ tenantId: 't', spaceId }, { occurredAt: '2023-05-01T10:00:00Z' }, () => [
        { type: 'SpaceConfigured', data: { blockSize: 2, decayLambda: 0.3 } },
      ]);
    }
    // Seals in the log: a1, b1, a2, b2 (two turns a block, the spaces taking turns).
    for (let block = 1; block <= 2; block++) {
      for (const spaceId of ['a', 'b']) {
        for (let turn = 1; turn <= 2; turn++) {
          const n = (block - 1) * 2 + turn;
          await writer.write(
            { tenantId: 't', spaceId },
            { occurredAt: `2023-05-0${n}T10:00:00Z` },
            (state) =>
              decideRecordTurn(state, {
                turnId: `${spaceId}-turn-${n}`,
                threadId: 'main',
                occurredAt: `2023-05-0${n}T10:00:00Z`,
                messages: [
                  {
                    role: 'user',
                    content: `Space ${spaceId} asks about the lake ${n}.`,
                    toolCalls: [],
                  },
                  {
                    role: 'assistant',
                    content: `The lake ${n} is cold in ${spaceId}.`,
                    toolCalls: [],
                  },
                ],
                newMessageId: () => newId('msg'),
                newBlockId: () => `${spaceId}${block}`,
              }),
          );
        }
      }
    }
  });
  afterAll(async () => {
    await log?.close();
    await database?.close();
  });

  it('a slice takes the space of the oldest seal with all the blocks it queued, then the next space', async () => {
    const { head, records } = await recordsUpToHead(log);
    const schema = 'rm_spaces';
    await coreProjection.migrate(database.db, schema);
    await database.db.transaction().execute(async (trx) => {
      await coreProjection.handle(trx, schema, records);
      expect(await storeCheckpoint(trx, schema, coreProjection.name, 0, head)).toBe('ok');
    });
    const seals = records.filter((r) => r.type === 'BlockSealed');
    expect(seals.map((r) => (r.data as { blockId: string }).blockId)).toEqual([
      'a1',
      'b1',
      'a2',
      'b2',
    ]);
    const left = async () =>
      (
        await sql<{
          block_id: string;
        }>`select block_id from ${sql.id(schema, 'message_index_queue')}
          order by position`.execute(database.db)
      ).rows.map((r) => r.block_id);

    // Two blocks: both of space a (one indexing call), not the two oldest seals (a1, b1).
    expect(await drainMessageIndex(database.db, schema, 2)).toBe(2);
    expect(await left()).toEqual(['b1', 'b2']);
    // The read model counts as applied up to the oldest seal still queued.
    expect(await appliedThrough(database.db, schema, head)).toBe(seals[1]!.meta.position - 1);
    // Per space (ADR 0043): space a is complete; b is held back by its own oldest seal only.
    const a = { tenantId: 't', spaceId: 'a' };
    const b = { tenantId: 't', spaceId: 'b' };
    expect(await appliedThrough(database.db, schema, head, a)).toBe(head);
    expect(await appliedThrough(database.db, schema, head, b)).toBe(seals[1]!.meta.position - 1);
    const indexed = await sql<{ block_id: string; n: number }>`
      select block_id, count(*)::int as n from ${sql.id(schema, 'search_docs')}
      where doc_kind = 'message' group by block_id order by block_id`.execute(database.db);
    expect(indexed.rows).toEqual([
      { block_id: 'a1', n: 4 },
      { block_id: 'a2', n: 4 },
    ]);

    expect(await drainMessageIndex(database.db, schema, 2)).toBe(2);
    expect(await left()).toEqual([]);
    expect(await appliedThrough(database.db, schema, head)).toBe(head);
  });

  it('a space cut short by the text budget does not hold back the other spaces in its slice (ADR 0043)', async () => {
    const { head, records } = await recordsUpToHead(log);
    const schema = 'rm_spaces_pieces';
    await coreProjection.migrate(database.db, schema);
    await database.db.transaction().execute(async (trx) => {
      await coreProjection.handle(trx, schema, records);
      expect(await storeCheckpoint(trx, schema, coreProjection.name, 0, head)).toBe('ok');
    });
    const docsOf = async () =>
      (
        await sql<{ space_id: string; n: number }>`
          select space_id, count(*)::int as n from ${sql.id(schema, 'search_docs')}
          where doc_kind = 'message' group by space_id order by space_id`.execute(database.db)
      ).rows;
    // A budget of one message a space: each slice indexes a message of a and one of b.
    expect(await drainMessageIndex(database.db, schema, 32, undefined, undefined, 10)).toBe(1);
    expect(await docsOf()).toEqual([
      { space_id: 'a', n: 1 },
      { space_id: 'b', n: 1 },
    ]);
    while ((await drainMessageIndex(database.db, schema, 32, undefined, undefined, 10)) > 0);
    const once = await dumpReadModel(database.db, 'rm_spaces');
    const pieces = await dumpReadModel(database.db, schema);
    expect(pieces.search_docs).toEqual(once.search_docs);
    expect(pieces.search_terms).toEqual(once.search_terms);
    expect(pieces.search_stats).toEqual(once.search_stats);
    expect(pieces.message_index_queue).toEqual([]);
  });
});
