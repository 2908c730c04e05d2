import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  decideImportCommit,
  decideImportUndo,
  decideRecordTurn,
  decodeRecord,
  type DecodedRecord,
  type ImportCommitCommand,
  type MemoryEventCard,
} from '@stratagate/domain';
import { createPostgresLog, type MessageLog } from '@stratagate/log';
import { dumpReadModel, type Database } from '@stratagate/store';
import { describeBackend, openTestDatabase } from '@stratagate/store/testing';
import { newId, SpaceWriterService } from '@stratagate/writer';
import { coreProjection } from './core.projection.ts';
import { recordsUpToHead } from './testing.ts';

const space = { tenantId: 't', spaceId: 'imp' };
type Row = Record<string, unknown>;

const card = (id: string, title: string, summary: string): MemoryEventCard => ({
  id,
  title,
  summary,
  tags: [],
  quotes: [],
  sourceMessageIds: ['msg_placeholder'],
  sourceBlockId: 'blk_talk',
  scope: 'project',
  criticality: 'routine',
  temporal: {
    precision: 'unknown',
    basis: 'unknown',
    status: 'unknown',
    participants: [],
    eventType: 'other',
    supersedesEventIds: [],
    conflictsWithEventIds: [],
    relatedEventIds: [],
  },
  catalogHints: [],
  formedTurn: 1,
});

const candidate = (title: string, summary: string) => ({
  memoryKind: 'fact' as const,
  category: 'project' as const,
  title,
  summary,
  narrative: null,
  tags: ['x'],
  quotes: [],
  temporal: { originalText: 'last spring', precision: 'day' as const, happenedStart: '2024-03-01' },
  scope: 'project' as const,
  criticality: 'routine' as const,
  confidence: 0.9,
});

const decided = (
  action: 'ADD' | 'SUPERSEDE' | 'CONFLICT' | 'IGNORE',
  ids: string[],
  confidence: number,
) => ({
  action,
  existingEventIds: ids,
  mergedCandidate: null,
  reason: 'test',
  confidence,
  requiresConfirmation: confidence < 0.85,
});

describe(`external memory import projection (${describeBackend()})`, () => {
  let database: Database;
  let log: MessageLog;
  let records: DecodedRecord[];
  let importEvents: MemoryEventCard[] = [];

  beforeAll(async () => {
    database = await openTestDatabase('import-projection');
    log = await createPostgresLog(database);
    const writer = new SpaceWriterService(log);
    await writer.write(space, { occurredAt: '2024-05-01T10:00:00Z' }, () => [
      { type: 'SpaceConfigured', data: { blockSize: 1, decayLambda: 0.3 } },
    ]);
    await writer.write(space, { occurredAt: '2024-05-01T10:00:00Z', threadId: 'talk' }, (state) =>
      decideRecordTurn(state, {
        turnId: 'turn-1',
        threadId: 'talk',
        occurredAt: '2024-05-01T10:00:00Z',
        messages: [{ role: 'user', content: 'We use npm. I drink green tea.', toolCalls: [] }],
        newMessageId: () => 'msg_placeholder',
        newBlockId: () => 'blk_talk',
      }),
    );
    await writer.write(space, { occurredAt: '2024-05-01T10:01:00Z', threadId: 'talk' }, () => [
      {
        type: 'BlockSummarized',
        data: {
          blockId: 'blk_talk',
          attempt: 1,
          title: 'npm and tea',
          tags: ['npm'],
          summary: 'Project uses npm; user drinks tea.',
          keyPoints: ['npm', 'tea'],
          shouldExtract: true,
          model: { provider: 'test', promptVersion: 't@1' },
        },
      },
      {
        type: 'MemoryEventsExtracted',
        data: {
          blockId: 'blk_talk',
          attempt: 1,
          events: [
            card('evt_npm', 'Project X uses npm', 'Installs with npm.'),
            card('evt_tea', 'Drinks green tea', 'Every morning.'),
          ],
          model: { provider: 'test', promptVersion: 't@1' },
        },
      },
    ]);
    const command: ImportCommitCommand = {
      importId: 'imp_1',
      blockId: 'blk_imp',
      messageId: 'msg_imp',
      occurredAt: '2024-06-01T08:00:00Z',
      text: '{"format":"stratagate.external-memory.v2"}\nsecond line',
      document: {
        format: 'v2',
        sourceType: 'external_ai_memory_export',
        sourceSystem: 'OtherAI',
        exportedAt: '2024-05-31',
        coverage: 'partial',
        coverageNote: null,
        uncertainItems: [],
      },
      recovered: false,
      items: [
        {
          candidate: candidate('Project X uses pnpm', 'Switched to pnpm.'),
          decision: decided('SUPERSEDE', ['evt_npm'], 0.9),
          decidedBy: 'offline',
          confirmed: false,
          model: null,
        },
        {
          candidate: candidate('Drinks black tea', 'Prefers black tea.'),
          decision: decided('CONFLICT', ['evt_tea'], 0.5),
          decidedBy: 'user',
          confirmed: true,
          model: null,
        },
        {
          candidate: candidate('Lives in Harbin', 'Born in Harbin.'),
          decision: decided('ADD', [], 0.95),
          decidedBy: 'offline',
          confirmed: false,
          model: null,
        },
        {
          candidate: candidate('Unsure thing', 'Maybe.'),
          decision: decided('ADD', [], 0.6),
          decidedBy: 'offline',
          confirmed: false,
          model: null,
        },
      ],
      newEventId: () => newId('evt'),
      requestedBy: 'key_1',
    };
    const outcome = await writer.write(
      space,
      { occurredAt: command.occurredAt, threadId: 'external-import:blk_imp' },
      (state) => decideImportCommit(state, command),
    );
    if (outcome.status !== 'appended') throw new Error('not appended');
    importEvents = (outcome.records.at(-1)!.data as { events: MemoryEventCard[] }).events;
    ({ records } = await recordsUpToHead(log));
    await coreProjection.migrate(database.db, 'rm_imp');
    await database.db.transaction().execute((trx) => coreProjection.handle(trx, 'rm_imp', records));
  });
  afterAll(async () => {
    await log?.close();
    await database?.close();
  });

  it('writes a ready source block that holds the whole text and waits for its graph job', async () => {
    const dump = await dumpReadModel(database.db, 'rm_imp');
    const block = (dump.blocks as Row[]).find((b) => b.block_id === 'blk_imp')!;
    expect(block).toMatchObject({
      thread_id: 'external-import:blk_imp',
      status: 'ready',
      title: '{"format":"stratagate.external-memory.v2"}',
      tags: ['external-memory-import'],
      key_points: ['{"format":"stratagate.external-memory.v2"}', 'second line'],
      should_extract: false,
      extraction_status: 'skipped',
      graph_status: 'pending',
      event_count: 3,
      sequence: 2,
    });
    expect(block.l5).toContain('second line');
    // The import says something to the memory, in no conversation: the turn count stays.
    expect(dump.spaces).toMatchObject([{ turn_counter: 1, block_count: 2 }]);
  });

  it('adds an event per applied decision, supersedes and links conflicts both ways', async () => {
    const dump = await dumpReadModel(database.db, 'rm_imp');
    const events = new Map((dump.memory_events as Row[]).map((e) => [e.event_id as string, e]));
    expect(importEvents.map((e) => e.title)).toEqual([
      'Project X uses pnpm',
      'Drinks black tea',
      'Lives in Harbin',
    ]);
    const [pnpm, black, harbin] = importEvents.map((e) => events.get(e.id)!);
    expect(pnpm).toMatchObject({
      pool: 'extracted',
      source_block_id: 'blk_imp',
      source_message_ids: ['msg_imp'],
      tags: ['project', 'x'],
      formed_turn: 1,
      status: 'active',
    });
    // No basis: the occurrence date is dropped, the words kept (MM-IMP-3).
    expect(pnpm!.happened_start).toBeNull();
    expect(pnpm!.temporal).toMatchObject({ originalText: 'last spring', precision: 'unknown' });
    expect(events.get('evt_npm')).toMatchObject({
      status: 'superseded',
      superseded_by: importEvents[0]!.id,
      forced_cap: 0.1,
    });
    expect(black!.temporal).toMatchObject({ conflictsWithEventIds: ['evt_tea'] });
    expect(events.get('evt_tea')).toMatchObject({
      status: 'active',
      conflicts_with: [importEvents[1]!.id],
    });
    expect(harbin).toMatchObject({ status: 'active' });
    expect(events.size).toBe(5);
  });

  it('changes nothing when the batch is delivered again', async () => {
    const once = await dumpReadModel(database.db, 'rm_imp');
    await database.db.transaction().execute((trx) => coreProjection.handle(trx, 'rm_imp', records));
    expect(await dumpReadModel(database.db, 'rm_imp')).toEqual(once);
  });

  it('scrubs the undone events from the relations and batches that remain', async () => {
    const writer = new SpaceWriterService(log);
    const refs = [`event:${importEvents[2]!.id}`, 'event:evt_tea'];
    await writer.write(space, { occurredAt: '2024-06-02T07:00:00Z' }, () => [
      {
        type: 'EvidenceBatchOpened',
        data: {
          batchId: 'batch_1',
          threadId: 'talk',
          operation: 'search_events',
          query: 'Harbin',
          refs,
          retrievedEventIds: [],
        },
      },
    ]);
    const [opened] = await log.readSpace(space, (await log.spaceVersion(space)) - 1, 1);
    await database.db
      .transaction()
      .execute((trx) => coreProjection.handle(trx, 'rm_imp', [decodeRecord(opened!)!]));
    await writer.write(space, { occurredAt: '2024-06-02T08:00:00Z' }, () =>
      decideImportUndo({
        importId: 'imp_1',
        blockId: 'blk_imp',
        eventIds: importEvents.map((e) => e.id),
        requestedBy: 'key_1',
      }),
    );
    const [undo] = await log.readSpace(space, (await log.spaceVersion(space)) - 1, 1);
    await database.db
      .transaction()
      .execute((trx) => coreProjection.handle(trx, 'rm_imp', [decodeRecord(undo!)!]));
    const dump = await dumpReadModel(database.db, 'rm_imp');
    const tea = (dump.memory_events as Row[]).find((e) => e.event_id === 'evt_tea')!;
    expect(tea.conflicts_with).toEqual([]);
    expect(dump.evidence_batches).toMatchObject([{ batch_id: 'batch_1', refs: ['event:evt_tea'] }]);
    expect((await writer.state(space)).threads.has('external-import:blk_imp')).toBe(false);
  });
});
