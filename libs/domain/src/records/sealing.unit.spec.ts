import { describe, expect, it } from 'vitest';
import type { RecordMetadata } from './envelope.ts';
import { sealingPlan } from './sealing.ts';

const meta = (threadId?: string): RecordMetadata => ({
  recordId: 'r1',
  schemaVersion: 1,
  tenantId: 't',
  spaceId: 's',
  occurredAt: '2023-05-01T00:00:00Z',
  ...(threadId ? { threadId } : {}),
});

describe('sealing plans (ADR 0046)', () => {
  it("seals a thread's record under the thread, others under the space, an erasure not at all", () => {
    expect(sealingPlan('TurnRecorded', {}, meta('chat'))).toEqual({
      outer: 'thread:chat',
      parts: [],
    });
    expect(sealingPlan('SpaceConfigured', {}, meta())).toEqual({ outer: 'space', parts: [] });
    expect(sealingPlan('ContentErased', { scope: 'thread' }, meta('chat'))).toEqual({
      outer: null,
      parts: [],
    });
    expect(sealingPlan('FromANewerWriter', { x: 1 }, meta())).toEqual({
      outer: 'space',
      parts: [],
    });
  });

  it('seals each extracted event again under its own key', () => {
    const plan = sealingPlan(
      'MemoryEventsExtracted',
      { blockId: 'b', events: [{ id: 'evt_1' }, { id: 'evt_2' }] },
      meta('chat'),
    );
    expect(plan.parts).toEqual([
      { path: ['events', 0], subjects: ['event:evt_1'] },
      { path: ['events', 1], subjects: ['event:evt_2'] },
    ]);
  });

  it('seals each imported event, and the decision that wrote it, under the event', () => {
    const plan = sealingPlan(
      'ExternalMemoryImported',
      {
        events: [{ id: 'evt_a' }],
        decisions: [{ eventId: null }, { eventId: 'evt_a' }],
      },
      meta('external-import:blk_1'),
    );
    expect(plan).toEqual({
      outer: 'thread:external-import:blk_1',
      parts: [
        { path: ['events', 0], subjects: ['event:evt_a'] },
        { path: ['decisions', 1], subjects: ['event:evt_a'] },
      ],
    });
  });

  it("seals an agent's remember call whole under the event it wrote or reinforced", () => {
    expect(
      sealingPlan('AgentMemoryRecorded', { event: { id: 'evt_9' } }, meta('chat')).parts,
    ).toEqual([{ path: [], subjects: ['event:evt_9'] }]);
    expect(
      sealingPlan('AgentMemoryRecorded', { event: null, reinforcedEventId: 'evt_3' }, meta('c'))
        .parts,
    ).toEqual([{ path: [], subjects: ['event:evt_3'] }]);
    expect(
      sealingPlan('AgentMemoryRecorded', { event: null, reinforcedEventId: null }, meta('c')).parts,
    ).toEqual([]);
  });

  it('seals a graph operation under every event it draws on; ids-only operations stay inside', () => {
    const plan = sealingPlan(
      'GraphProjected',
      {
        eventIds: ['evt_1', 'evt_2'],
        operations: [
          {
            op: 'node.create',
            node: {
              sourceEventIds: ['evt_1'],
              nameSourceEventIds: ['evt_2'],
              aliases: [{ value: 'A', sourceEventIds: ['evt_1'] }],
              tags: [],
            },
          },
          { op: 'fact.add', fact: { sourceEventIds: ['evt_2'] } },
          { op: 'fact.supersede', factId: 'gfact_1', validTo: null, supersededBy: 'gfact_2' },
          { op: 'edge.add', edge: { sourceEventIds: [] } },
        ],
        warnings: ['alias dropped'],
      },
      meta('chat'),
    );
    expect(plan.parts).toEqual([
      { path: ['operations', 0], subjects: ['event:evt_1', 'event:evt_2'] },
      { path: ['operations', 1], subjects: ['event:evt_2'] },
      { path: ['warnings', 0], subjects: ['event:evt_1', 'event:evt_2'] },
    ]);
  });

  it("seals a profile record made in a conversation under that conversation's thread", () => {
    const origin = { spaceId: 'home', threadId: 'chat' };
    expect(
      sealingPlan(
        'ProfileChangeProposed',
        { proposalId: 'p', origin: { ...origin, turnId: null, afterThreadTurn: 1 } },
        meta(),
      ),
    ).toEqual({
      outer: 'space',
      parts: [{ path: [], subjects: ['thread:chat'], space: 'home' }],
    });
    const changed = sealingPlan('ProfileFieldChanged', { origin, sourceMessageId: 'm' }, meta());
    expect(changed.parts).toEqual(
      ['sourceMessageId', 'origin', 'proposalId'].map((field) => ({
        path: [field],
        subjects: ['thread:chat'],
        space: 'home',
        orNull: true,
      })),
    );
    // Set in the settings: nothing of a conversation in it.
    expect(sealingPlan('ProfileFieldChanged', { origin: null }, meta()).parts).toEqual([]);
  });
});
