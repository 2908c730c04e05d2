import { describe, expect, it } from 'vitest';
import type { MemoryRecord } from '../records/record-types.ts';
import { evolveSpaceWriter, initialSpaceWriterState } from '../space/space-writer.ts';
import type { ImportCandidate } from './external-memory-format.ts';
import {
  decideImportCommit,
  decideImportUndo,
  importTemporal,
  sourceBlockLayers,
  type ImportCommitCommand,
} from './import-commit.ts';
import type { ImportDecision } from './import-decision.ts';

const candidate = (over: Partial<ImportCandidate> = {}): ImportCandidate => ({
  memoryKind: 'fact',
  category: 'career',
  title: 'Works at Acme',
  summary: 'The user works at Acme as an engineer.',
  narrative: null,
  tags: ['work'],
  quotes: [],
  temporal: {},
  scope: 'user',
  criticality: 'identity',
  confidence: 0.9,
  ...over,
});
const decision = (over: Partial<ImportDecision> = {}): ImportDecision => ({
  action: 'ADD',
  existingEventIds: [],
  mergedCandidate: null,
  reason: 'new',
  confidence: 0.9,
  requiresConfirmation: false,
  ...over,
});

function command(items: ImportCommitCommand['items']): ImportCommitCommand {
  let n = 0;
  return {
    importId: 'imp_1',
    blockId: 'blk_1',
    messageId: 'msg_1',
    occurredAt: '2024-06-01T08:00:00Z',
    text: 'line one\n\nline two',
    document: {
      format: 'v2',
      sourceType: 'external_ai_memory_export',
      sourceSystem: 'OtherAI',
      exportedAt: null,
      coverage: 'full',
      coverageNote: null,
      uncertainItems: [],
    },
    recovered: false,
    items,
    newEventId: () => `evt_${++n}`,
    requestedBy: 'key_1',
  };
}

const state = () => {
  const s = initialSpaceWriterState();
  s.turnCounter = 7;
  s.blockSequence = 3;
  s.version = 20;
  return s;
};

describe('decideImportCommit (MM-IMP-8)', () => {
  it('given decisions, when committed, then the source block comes first and the import last', () => {
    const records = decideImportCommit(
      state(),
      command([
        {
          candidate: candidate(),
          decision: decision(),
          decidedBy: 'offline',
          confirmed: false,
          model: null,
        },
      ]),
    );
    expect(records.map((r) => r.type)).toEqual([
      'TurnRecorded',
      'BlockSealed',
      'BlockSummarized',
      'ExternalMemoryImported',
    ]);
    const [turn, seal, summary, imported] = records;
    expect(turn!.data).toMatchObject({
      turnId: 'import:imp_1',
      threadId: 'external-import:blk_1',
      spaceTurn: 7,
      threadTurn: 1,
      messages: [{ messageId: 'msg_1', role: 'user', content: 'line one\n\nline two' }],
    });
    expect(seal!.data).toMatchObject({ sequence: 4, spaceTurnTo: 7, reason: 'import' });
    expect(summary!.data).toMatchObject({
      title: 'line one',
      tags: ['external-memory-import'],
      keyPoints: ['line one', 'line two'],
      shouldExtract: false,
    });
    expect(imported!.data).toMatchObject({
      turn: 7,
      events: [
        {
          id: 'evt_1',
          title: 'Works at Acme',
          tags: ['career', 'work'],
          sourceBlockId: 'blk_1',
          sourceMessageIds: ['msg_1'],
          criticality: 'identity',
          formedTurn: 7,
        },
      ],
      decisions: [{ index: 0, action: 'ADD', eventId: 'evt_1', decidedBy: 'offline' }],
    });
  });

  it('given an unreviewed low-confidence item, when committed, then it is IGNORE and writes nothing', () => {
    const [, , , imported] = decideImportCommit(
      state(),
      command([
        {
          candidate: candidate(),
          decision: decision({ confidence: 0.6, requiresConfirmation: true }),
          decidedBy: 'offline',
          confirmed: false,
          model: null,
        },
      ]),
    );
    expect(imported!.data).toMatchObject({
      events: [],
      decisions: [
        {
          action: 'IGNORE',
          eventId: null,
          reason: 'not confirmed: committed as IGNORE (proposed ADD)',
        },
      ],
    });
  });

  it('given MERGE with a merged card, SUPERSEDE and CONFLICT, then relations point at the targets', () => {
    const [, , , imported] = decideImportCommit(
      state(),
      command([
        {
          candidate: candidate(),
          decision: decision({
            action: 'MERGE',
            existingEventIds: ['evt_old'],
            mergedCandidate: { title: 'Engineer at Acme', summary: 'Merged.' },
          }),
          decidedBy: 'model',
          confirmed: false,
          model: { provider: 'openai-compatible', promptVersion: 'import-decider@1' },
        },
        {
          candidate: candidate({ title: 'B' }),
          decision: decision({ action: 'SUPERSEDE', existingEventIds: ['evt_x'] }),
          decidedBy: 'offline',
          confirmed: false,
          model: null,
        },
        {
          candidate: candidate({ title: 'C' }),
          decision: decision({ action: 'CONFLICT', existingEventIds: ['evt_y'] }),
          decidedBy: 'user',
          confirmed: true,
          model: null,
        },
      ]),
    );
    const events = (
      imported!.data as { events: { title: string; temporal: Record<string, unknown> }[] }
    ).events;
    expect(
      events.map((e) => [e.title, e.temporal.supersedesEventIds, e.temporal.conflictsWithEventIds]),
    ).toEqual([
      ['Engineer at Acme', ['evt_old'], []],
      ['B', ['evt_x'], []],
      ['C', [], ['evt_y']],
    ]);
  });

  it('leaves the turn counter where it was and opens no tail, as the writer folds it', () => {
    const s = state();
    const records = decideImportCommit(s, command([]));
    records.forEach((r, i) => evolveSpaceWriter(s, r as MemoryRecord, 21 + i));
    expect(s).toMatchObject({ turnCounter: 7, blockSequence: 4 });
    expect(s.threads.get('external-import:blk_1')).toEqual({ turnCount: 1, openTurnIds: [] });
    const [undo] = decideImportUndo({
      importId: 'imp_1',
      blockId: 'blk_1',
      eventIds: [],
      requestedBy: 'cli',
    });
    evolveSpaceWriter(s, undo, 25);
    expect(s.threads.has('external-import:blk_1')).toBe(false);
  });
});

describe('source block layers and import times (MM-IMP-3, MM-IMP-8)', () => {
  it('takes the first line (≤ 80), the first 500 characters and the first 8 lines', () => {
    const text = ['x'.repeat(100), ...Array.from({ length: 9 }, (_, i) => `line ${i}`)].join('\n');
    const layers = sourceBlockLayers(text);
    expect(layers.title).toHaveLength(80);
    expect(layers.summary).toBe(text.slice(0, 500));
    expect(layers.keyPoints).toHaveLength(8);
    expect(layers.keyPoints[7]).toBe('line 6');
  });

  it('keeps an occurrence only with a known precision and basis, never the export time', () => {
    expect(
      importTemporal(
        { happenedStart: '2024-03-01', precision: 'day', basis: 'explicit' },
        '2024-06-01T00:00:00Z',
        'th',
      ),
    ).toMatchObject({
      happenedStart: '2024-03-01',
      precision: 'day',
      mentionedAt: '2024-06-01T00:00:00Z',
    });
    const unknownBasis = importTemporal(
      { happenedStart: '2024-03-01', precision: 'day' },
      '2024-06-01T00:00:00Z',
      'th',
    );
    expect(unknownBasis.happenedStart).toBeUndefined();
    expect(unknownBasis.precision).toBe('unknown');
    expect(
      importTemporal(
        { happenedStart: 'next week', precision: 'range', basis: 'relative' },
        'now',
        'th',
      ),
    ).toMatchObject({ originalText: 'next week' });
    expect(importTemporal({ eventType: '发布' }, 'now', 'th').eventType).toBe('release');
  });
});
