import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConflictError,
  InvalidRequestError,
  RejectedError,
  StrataGate,
  type ClientBody,
} from '@stratagate/client';
import { coreProjection, createProjector } from '@stratagate/projector';
import { dumpReadModel } from '@stratagate/store';
import { describeBackend } from '@stratagate/store/testing';
import { startTestNode, type TestNode } from './harness.ts';

/*
 * Through the TypeScript client, as an agent's host would call it: the gate's answers come back
 * typed, its refusals as typed errors.
 */
const spaceId = 'gate';
const threadId = 's';

describe(`evidence gate and adoption-based weights through HTTP (${describeBackend()})`, () => {
  let t: TestNode;
  let sg: StrataGate;
  let eventId: string;
  beforeAll(async () => {
    t = await startTestNode('gate', { listen: true });
    sg = new StrataGate({ baseUrl: t.node.url!, apiKey: t.key });
    await sg.call('configureSpace', { spaceId, body: { blockSize: 1 } });
    await sg.call('recordTurn', {
      spaceId,
      body: {
        threadId,
        occurredAt: '2023-06-09T13:56:00Z',
        messages: [
          {
            role: 'user',
            name: 'Caroline',
            content: 'I gave a talk at a school last week about my journey.',
          },
          { role: 'assistant', content: 'That is wonderful.' },
        ],
      },
    });
    await sg.waitUntilSettled(spaceId);
    const { events } = await sg.call('listMemoryEvents', { spaceId });
    eventId = events.find((e) => /talk/i.test(e.title))!.id;
  });
  afterAll(async () => {
    await t?.stop();
  });

  const event = () => sg.call('getMemoryEvent', { spaceId, eventId });
  const expand = () => sg.call('expandEvent', { spaceId, eventId, body: { threadId } });
  const assess = (body: ClientBody<'assessEvidence'>) =>
    sg.call('assessEvidence', { spaceId, threadId, body });
  const adopt = (body: ClientBody<'adoptEvidence'>) =>
    sg.call('adoptEvidence', { spaceId, threadId, body });

  it('expanding an event opens batch_1; assessment normalises refs per MM-GATE-4/5', async () => {
    const opened = await expand();
    expect(opened.batchId).toBe('batch_1');
    expect(opened.evidenceRefs).toEqual([`event:${eventId}`]);
    const ref = `event:${eventId}`;
    const assessed = await assess({
      verdict: 'sufficient',
      evidence_refs: [ref, ref, '', 5, 'event:z'],
      fit: '  the   talk  ',
      next_strategy: 'answer',
    });
    expect(assessed).toMatchObject({
      batchId: 'batch_1',
      verdict: 'sufficient',
      evidenceRefs: [ref],
      missing: '',
      fit: 'the talk',
    });
    expect(assessed.rejectedEvidenceRefs.map((r) => [r.inputIndex, r.reason])).toEqual([
      [1, 'duplicate'],
      [2, 'invalid_ref'],
      [3, 'invalid_ref'],
      [4, 'not_in_batch'],
    ]);
    const open = await sg.call('listEvidenceBatches', { spaceId, threadId });
    expect(open.batches.map((b) => b.batchId)).toEqual(['batch_1']);
  });

  it('adoption raises n by exactly one and moves the anchor; the same receipt again changes nothing', async () => {
    const before = await event();
    expect(before.weight.mentionCount).toBe(1);
    const body = {
      receiptId: 'session-s:tool:call-1',
      evidence_refs: [`event:${eventId}`, `event:${eventId}`],
    };
    const first = await adopt(body);
    expect(first).toMatchObject({
      batchId: 'batch_1',
      batchStatus: 'recorded',
      incremented: 1,
      eventIds: [eventId],
    });
    expect(first.unresolvedBatchIds).toEqual([]);
    await sg.waitUntilSettled(spaceId);
    const after = await event();
    expect(after.weight.mentionCount).toBe(2);
    expect(after.weight.value).toBe(1);

    const again = await adopt(body);
    expect(again).toEqual(first);
    await sg.waitUntilSettled(spaceId);
    expect((await event()).weight.mentionCount).toBe(2);

    await expect(adopt({ ...body, evidence_refs: [] })).rejects.toMatchObject({
      constructor: ConflictError,
      status: 409,
      code: 'receipt_conflict',
    });
  });

  it('refuses to re-assess a recorded batch, to adopt unaccepted refs, and a blank receipt', async () => {
    await expect(assess({ batchId: 'batch_1', verdict: 'partial' })).rejects.toMatchObject({
      constructor: ConflictError,
      code: 'batch_recorded',
    });
    await expand();
    const partial = await assess({
      verdict: 'partial',
      evidence_refs: [`event:${eventId}`],
      missing: 'the date',
      next_strategy: 'search_raw',
    });
    expect(partial).toMatchObject({
      batchId: 'batch_2',
      verdict: 'partial',
      nextStrategy: 'search_raw',
    });
    const notAdopted = await adopt({
      receiptId: 'session-s:tool:call-2',
      evidence_refs: [`event:${eventId}`],
    }).catch((e: unknown) => e);
    expect(notAdopted).toBeInstanceOf(RejectedError);
    expect(notAdopted).toMatchObject({
      status: 422,
      details: { invalidRefs: [{ reason: 'not_adopted' }] },
    });
    await expect(adopt({ receiptId: '  ', evidence_refs: [] })).rejects.toBeInstanceOf(
      InvalidRequestError,
    );
    const empty = await adopt({ receiptId: 'session-s:tool:call-3', evidence_refs: [] });
    expect(empty).toMatchObject({
      batchId: 'batch_2',
      incremented: 0,
      unresolvedBatchIds: [],
    });
    await sg.waitUntilSettled(spaceId);
    expect((await event()).weight.mentionCount).toBe(2);
  });

  it('a rebuild reproduces batches and weights exactly', async () => {
    await sg.waitUntilSettled(spaceId);
    await t.node.consolidator!.stop();
    await t.node.projector!.stop();
    const db = t.node.database.db;
    await createProjector({
      db,
      log: t.node.log,
      schema: 'rm_gate_rebuild',
      projection: coreProjection,
    }).catchUp();
    const live = await dumpReadModel(db, t.node.config.STRATAGATE_READ_MODEL_SCHEMA);
    const rebuilt = await dumpReadModel(db, 'rm_gate_rebuild');
    expect(rebuilt.evidence_batches).toHaveLength(2);
    expect(rebuilt).toEqual(live);
  });
});
