import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { decideRecordTurn, decodeRecord, type DecodedRecord } from '@stratagate/domain';
import { SpaceWriterService, newId } from '@stratagate/writer';
import { createPostgresLog, type MessageLog } from '@stratagate/log';
import { type Database } from '@stratagate/store';
import { describeBackend, openTestDatabase, statisticsValues } from '@stratagate/store/testing';
import { coreProjection } from './core.projection.ts';
import { visibleHead } from './testing.ts';

/*
 * The core projection keeps the read model's planner statistics (ADR 0029), and gives the upkeep
 * the spaces' turn counts: a space the statistics do not know is analysed in once it has 1,000
 * turns, before the table has grown by half.
 */
const schema = 'rm_upkeep';
const tenantId = 't';

describe(`read-model statistics kept by the core projection (${describeBackend()})`, () => {
  let database: Database;
  let log: MessageLog;
  let writer: SpaceWriterService;
  let read = 0;

  /** Appends `n` one-message turns to `spaceId`. */
  const addTurns = async (spaceId: string, n: number) => {
    for (let i = 1; i <= n; i++) {
      await writer.write({ tenantId, spaceId }, { occurredAt: '2024-01-01T00:00:00Z' }, (state) =>
        decideRecordTurn(state, {
          turnId: `${spaceId}-${i}`,
          threadId: 'main',
          occurredAt: '2024-01-01T00:00:00Z',
          messages: [{ role: 'user', content: `turn ${i}`, toolCalls: [] }],
          newMessageId: () => newId('msg'),
          newBlockId: () => newId('blk'),
        }),
      );
    }
  };
  /** Everything appended since the last call, decoded. */
  const newRecords = async (): Promise<DecodedRecord[]> => {
    const head = await visibleHead(log);
    const out: DecodedRecord[] = [];
    while (read < head) {
      const page = await log.readAll(read, 1000);
      out.push(...page.map((r) => decodeRecord(r)!));
      read = Number(page[page.length - 1]!.position);
    }
    return out;
  };
  /** One batch of the core projection, as the runner applies it. */
  const project = async (records: DecodedRecord[]) => {
    await database.db.transaction().execute((trx) => coreProjection.handle(trx, schema, records));
  };
  const knownSpaces = () => statisticsValues(database.db, schema, 'turns', 'space_id');
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  beforeAll(async () => {
    database = await openTestDatabase('statistics_upkeep');
    log = await createPostgresLog(database);
    writer = new SpaceWriterService(log);
    await coreProjection.migrate(database.db, schema);
  });
  afterAll(async () => {
    await log?.close();
    await database?.close();
  });

  it('analyses the turns of a new space once it has 1,000 turns, before the table has grown by half', async () => {
    await addTurns('first', 3000);
    await project(await newRecords());
    // The upkeep runs at the start of a batch, at most once a second per schema.
    await sleep(1100);
    await project([]);
    expect(await knownSpaces()).toEqual(['first']);

    // A third more turns, all of a new space: short of the growth that analyses again.
    await addTurns('second', 1000);
    await project(await newRecords());
    await sleep(1100);
    await project([]);
    expect([...(await knownSpaces())].sort()).toEqual(['first', 'second']);
    const plan = await sql<{ 'QUERY PLAN': string }>`
      explain select * from ${sql.id(schema, 'turns')}
      where tenant_id = ${tenantId} and space_id = 'second'
        and turn_id = any(array['second-5', 'second-9'])`.execute(database.db);
    expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/turns_pkey/);
  });
});
