import { describe, expect, it } from 'vitest';
import type { RememberGate } from '../retrieval/remember-gate.ts';
import { decideRemember, type RememberCommand } from './remember-decision.ts';
import { rememberCandidate } from './remember.ts';

const card = rememberCandidate('Caroline prefers pnpm over npm.', 'preference');

function command(gate: RememberGate, overrides: Partial<RememberCommand> = {}): RememberCommand {
  return {
    requestId: 'session-1:tool:call_2',
    threadId: 'session-1',
    content: 'Caroline prefers pnpm over npm.',
    category: 'preference',
    gate,
    resolution: null,
    decider: null,
    provenance: { kind: 'open_tail', blockId: null, messageIds: ['msg_1'] },
    event: {
      id: 'evt_new',
      ...card,
      quotes: [],
      sourceMessageIds: ['msg_1'],
      sourceBlockId: null,
      catalogHints: [],
      formedTurn: 0,
      temporal: { mentionedAt: '2023-05-09T09:00:00Z', eventType: card.eventType },
    },
    ...overrides,
  };
}

describe('decideRemember (MM-REM-3..5)', () => {
  it('given a clear new statement, when remembered, then the event is written at the turn now', () => {
    const [record] = decideRemember(
      { turnCounter: 9 },
      command({ outcome: 'ADDED', gate: 'clear-new' }),
    );
    expect(record.type).toBe('AgentMemoryRecorded');
    expect(record.data).toMatchObject({
      outcome: 'ADDED',
      gate: 'clear-new',
      turn: 9,
      reinforcedEventId: null,
      provenance: 'open_tail',
      event: { id: 'evt_new', formedTurn: 9, title: card.title },
    });
  });

  it('given a duplicate, when remembered, then nothing is written and the duplicate is reinforced', () => {
    const [record] = decideRemember(
      { turnCounter: 9 },
      command({ outcome: 'REINFORCED', eventId: 'evt_old', exact: false, containment: 0.9 }),
    );
    expect(record.data).toMatchObject({
      outcome: 'REINFORCED',
      gate: 'containment-duplicate',
      event: null,
      reinforcedEventId: 'evt_old',
      containment: 0.9,
    });
  });

  it('given an ambiguous gate marked as a conflict, when remembered, then the event says what it conflicts with', () => {
    const [record] = decideRemember(
      { turnCounter: 2 },
      command(
        { outcome: 'AMBIGUOUS', hits: [{ id: 'evt_old', containment: 0.5 }] },
        {
          resolution: {
            outcome: 'CONFLICT_MARKED',
            reason: 'heuristic-conflict',
            conflictsWithEventIds: ['evt_old'],
          },
        },
      ),
    );
    expect(record.data).toMatchObject({
      outcome: 'CONFLICT_MARKED',
      gate: 'heuristic-conflict',
      matchedEventIds: ['evt_old'],
      conflictsWithEventIds: ['evt_old'],
      event: { temporal: { conflictsWithEventIds: ['evt_old'] } },
    });
  });

  it('an ambiguous gate without a resolution is a programming error', () => {
    expect(() =>
      decideRemember(
        { turnCounter: 2 },
        command({ outcome: 'AMBIGUOUS', hits: [{ id: 'evt_old', containment: 0.5 }] }),
      ),
    ).toThrow(/resolution/);
  });
});
