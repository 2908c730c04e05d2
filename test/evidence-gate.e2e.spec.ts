import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coreProjection, createProjector } from '@stratagate/projector';
import { describeBackend, dumpReadModel } from '@stratagate/store';
import { startTestNode, type TestNode } from './harness.ts';

const S = '/v1/spaces/gate';

describe(`evidence gate and adoption-based weights through HTTP (${describeBackend()})`, () => {
  let t: TestNode;
  let eventId: string;
  beforeAll(async () => {
    t = await startTestNode('gate');
    await t.request('PUT', `${S}/settings`, { blockSize: 1 });
    await t.request('POST', `${S}/turns`, {
      threadId: 's',
      occurredAt: '2023-06-09T13:56:00Z',
      messages: [
        {
          role: 'user',
          name: 'Caroline',
          content: 'I gave a talk at a school last week about my journey.',
        },
        { role: 'assistant', content: 'That is wonderful.' },
      ],
    });
    await t.settle('gate');
    const events = (await t.request('GET', `${S}/memory-events`)).body.events;
    eventId = events.find((e: { title: string }) => /talk/i.test(e.title)).id;
  });
  afterAll(async () => {
    await t?.stop();
  });

  const event = async () => (await t.request('GET', `${S}/memory-events/${eventId}`)).body;

  it('expanding an event opens batch_1; assessment normalises refs per MM-GATE-4/5', async () => {
    const opened = await t.request('POST', `${S}/memory-events/${eventId}/expand`, {
      threadId: 's',
    });
    expect(opened.status).toBe(200);
    expect(opened.body.batchId).toBe('batch_1');
    expect(opened.body.evidenceRefs).toEqual([`event:${eventId}`]);
    const ref = `event:${eventId}`;
    const res = await t.request('POST', `${S}/threads/s/assess`, {
      verdict: 'sufficient',
      evidence_refs: [ref, ref, '', 5, 'event:z'],
      fit: '  the   talk  ',
      next_strategy: 'answer',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      batchId: 'batch_1',
      verdict: 'sufficient',
      evidenceRefs: [ref],
      missing: '',
      fit: 'the talk',
    });
    expect(
      res.body.rejectedEvidenceRefs.map((r: { inputIndex: number; reason: string }) => [
        r.inputIndex,
        r.reason,
      ]),
    ).toEqual([
      [1, 'duplicate'],
      [2, 'invalid_ref'],
      [3, 'invalid_ref'],
      [4, 'not_in_batch'],
    ]);
    const open = await t.request('GET', `${S}/threads/s/batches`);
    expect(open.body.batches.map((b: { batchId: string }) => b.batchId)).toEqual(['batch_1']);
  });

  it('adoption raises n by exactly one and moves the anchor; the same receipt again changes nothing', async () => {
    const before = await event();
    expect(before.weight.mentionCount).toBe(1);
    const body = {
      receiptId: 'session-s:tool:call-1',
      evidence_refs: [`event:${eventId}`, `event:${eventId}`],
    };
    const first = await t.request('POST', `${S}/threads/s/adopt`, body);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      batchId: 'batch_1',
      batchStatus: 'recorded',
      incremented: 1,
      eventIds: [eventId],
    });
    expect(first.body.unresolvedBatchIds).toEqual([]);
    await t.settle('gate');
    const after = await event();
    expect(after.weight.mentionCount).toBe(2);
    expect(after.weight.value).toBe(1);

    const again = await t.request('POST', `${S}/threads/s/adopt`, body);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    await t.settle('gate');
    expect((await event()).weight.mentionCount).toBe(2);

    const other = await t.request('POST', `${S}/threads/s/adopt`, { ...body, evidence_refs: [] });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('receipt_conflict');
  });

  it('refuses to re-assess a recorded batch, to adopt unaccepted refs, and a blank receipt', async () => {
    const reassess = await t.request('POST', `${S}/threads/s/assess`, {
      batchId: 'batch_1',
      verdict: 'partial',
    });
    expect(reassess.status).toBe(409);
    await t.request('POST', `${S}/memory-events/${eventId}/expand`, { threadId: 's' });
    const partial = await t.request('POST', `${S}/threads/s/assess`, {
      verdict: 'partial',
      evidence_refs: [`event:${eventId}`],
      missing: 'the date',
      next_strategy: 'search_raw',
    });
    expect(partial.body).toMatchObject({
      batchId: 'batch_2',
      verdict: 'partial',
      nextStrategy: 'search_raw',
    });
    const notAdopted = await t.request('POST', `${S}/threads/s/adopt`, {
      receiptId: 'session-s:tool:call-2',
      evidence_refs: [`event:${eventId}`],
    });
    expect(notAdopted.status).toBe(422);
    expect(notAdopted.body.error.details.invalidRefs[0].reason).toBe('not_adopted');
    const blank = await t.request('POST', `${S}/threads/s/adopt`, {
      receiptId: '  ',
      evidence_refs: [],
    });
    expect(blank.status).toBe(400);
    const empty = await t.request('POST', `${S}/threads/s/adopt`, {
      receiptId: 'session-s:tool:call-3',
      evidence_refs: [],
    });
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({
      batchId: 'batch_2',
      incremented: 0,
      unresolvedBatchIds: [],
    });
    await t.settle('gate');
    expect((await event()).weight.mentionCount).toBe(2);
  });

  it('a rebuild reproduces batches and weights exactly', async () => {
    await t.settle('gate');
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
