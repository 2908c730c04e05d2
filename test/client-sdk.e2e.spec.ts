import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StrataGateError } from '@stratagate/client';
import {
  ConflictError,
  ConnectionError,
  InvalidRequestError,
  NotFoundError,
  RejectedError,
  StrataGate,
  UnauthorizedError,
} from '@stratagate/client';
import { generateClientSources, indexOperations } from '@stratagate/client/codegen';
import { describeBackend } from '@stratagate/store/testing';
import { startTestNode, type TestNode } from './harness.ts';

/*
 * The TypeScript client against a real node over HTTP: its generated part matches what the
 * server serves, it reaches every operation, and a whole round (turns → settle → recall →
 * search → assess → adopt) runs through it with typed errors and tenancy kept.
 */

const ROOT = join(import.meta.dirname, '..');
const SPACE = 'sdk-round';

describe(`TypeScript client against a node (${describeBackend()})`, () => {
  let t: TestNode;
  let doc: Record<string, unknown>;
  let sg: StrataGate;

  beforeAll(async () => {
    t = await startTestNode('client_sdk', { listen: true });
    doc = (await t.node.http!.inject({ method: 'GET', url: '/openapi.json' })).json();
    sg = new StrataGate({ baseUrl: t.node.url!, apiKey: t.key });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('has generated files that match the served document (else: npm run client:generate)', async () => {
    const errors = await readFile(join(ROOT, 'docs/api-errors.md'), 'utf8');
    const expected = await generateClientSources(doc, errors, ROOT);
    for (const [file, text] of Object.entries(expected)) {
      const committed = await readFile(join(ROOT, file), 'utf8').catch(() => '');
      expect(
        committed === text,
        `${file} is out of date with the server: run \`npm run client:generate\``,
      ).toBe(true);
    }
  });

  it('reaches every operation of the served document', () => {
    const served = indexOperations(doc).map((o) => `${o.operationId} ${o.method} ${o.path}`);
    const client = Object.entries(StrataGate.operations).map(
      ([id, o]) => `${id} ${o.method} ${o.path}`,
    );
    expect(served.length).toBeGreaterThanOrEqual(20);
    expect(client.sort()).toEqual(served.sort());
  });

  it('runs a round: turns, settle, recall, search, assess, adopt', async () => {
    await sg.call('configureSpace', { spaceId: SPACE, body: { blockSize: 2 } });
    const said = [
      'Our project Atlas uses npm.',
      'We switched Atlas to pnpm because installs are faster.',
    ];
    for (const [i, content] of said.entries()) {
      // No turnId: the client makes one, so a resend of this call is answered, not doubled.
      const recorded = await sg.call('recordTurn', {
        spaceId: SPACE,
        body: {
          threadId: 's1',
          occurredAt: `2023-05-0${i + 1}T10:00:00Z`,
          messages: [
            { role: 'user', name: 'Caroline', content },
            { role: 'assistant', content: 'Noted.' },
          ],
        },
      });
      expect(recorded.turnId).toMatch(/^[0-9a-f-]{36}$/);
    }
    const status = await sg.waitUntilSettled(SPACE, { timeoutMs: 60_000 });
    expect(status).toMatchObject({ settled: true, turnCounter: 2, blocks: { ready: 1 } });

    const recall = await sg.call('recall', {
      spaceId: SPACE,
      threadId: 's2',
      body: { message: 'Which package manager does Atlas use now?' },
    });
    expect(recall.contextText).toMatch(/pnpm/);

    const found = await sg.call('searchEvents', {
      spaceId: SPACE,
      threadId: 's2',
      body: { query: 'Atlas package manager pnpm' },
    });
    const ref = found.evidenceRefs.find((r) => r.startsWith('event:'))!;
    expect(ref).toBeDefined();
    const eventId = ref.slice('event:'.length);
    const before = await sg.call('getMemoryEvent', { spaceId: SPACE, eventId });

    const assessed = await sg.call('assessEvidence', {
      spaceId: SPACE,
      threadId: 's2',
      body: {
        batchId: found.batchId,
        verdict: 'sufficient',
        evidence_refs: [ref],
        fit: 'says Atlas switched to pnpm',
        next_strategy: 'answer',
      },
    });
    expect(assessed).toMatchObject({ verdict: 'sufficient', evidenceRefs: [ref] });
    const adopted = await sg.call('adoptEvidence', {
      spaceId: SPACE,
      threadId: 's2',
      body: { batchId: found.batchId, evidence_refs: [ref] },
    });
    expect(adopted).toMatchObject({ batchStatus: 'recorded', incremented: 1, eventIds: [eventId] });
    expect(adopted.receiptId).toMatch(/^[0-9a-f-]{36}$/);

    await sg.waitUntilSettled(SPACE);
    const after = await sg.call('getMemoryEvent', { spaceId: SPACE, eventId });
    expect(after.weight.mentionCount).toBe(before.weight.mentionCount + 1);
  });

  it('answers with evidence in one call: the judged event is adopted once', async () => {
    const answered = await sg.answerWithEvidence({
      spaceId: SPACE,
      threadId: 's3',
      body: { query: 'Atlas pnpm' },
      judge: (found) => {
        const hit = found.evidenceRefs.find((r) => r.startsWith('event:'))!;
        return {
          verdict: 'sufficient',
          evidenceRefs: [hit],
          fit: 'names the package manager',
          answer: 'pnpm',
        };
      },
    });
    expect(answered.answer).toBe('pnpm');
    expect(answered.assessment.verdict).toBe('sufficient');
    expect(answered.adoption).toMatchObject({ incremented: 1, unresolvedBatchIds: [] });

    const unsure = await sg.answerWithEvidence({
      spaceId: SPACE,
      threadId: 's3',
      body: { query: 'Atlas deadline' },
      judge: () => ({ verdict: 'partial', evidenceRefs: [], fit: '', missing: 'the deadline' }),
    });
    expect(unsure.answer).toBeUndefined();
    expect(unsure.adoption).toMatchObject({ incremented: 0, evidenceRefs: [] });
    const open = await sg.call('listEvidenceBatches', { spaceId: SPACE, threadId: 's3' });
    expect(open.batches).toEqual([]);
  });

  it('downloads an export file as text and imports it into another space', async () => {
    await sg.call('recordTurn', {
      spaceId: 'sdk-export',
      body: { messages: [{ role: 'user', content: 'Atlas ships in May.' }] },
    });
    const original = await sg.waitUntilSettled('sdk-export');
    const file = await sg.call('exportSpace', { spaceId: 'sdk-export' });
    expect(typeof file).toBe('string');
    expect(file.trim().split('\n').length).toBeGreaterThan(1);
    const imported = await sg.call('importSpace', { spaceId: 'sdk-copy', body: file });
    expect(imported).toMatchObject({
      source: { spaceId: 'sdk-export' },
      target: { spaceId: 'sdk-copy' },
      idsRewritten: true,
    });
    const copy = await sg.waitUntilSettled('sdk-copy');
    expect(copy.turnCounter).toBe(original.turnCounter);
  });

  it('sends a lost write again with the same idempotency key: recorded once', async () => {
    let calls = 0;
    const flaky = new StrataGate({
      baseUrl: t.node.url!,
      apiKey: t.key,
      retryDelayMs: 1,
      // The first request reaches the server, but its answer is lost on the way back.
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        if (++calls === 1) throw new TypeError('socket hang up');
        return res;
      },
    });
    const turn = await flaky.call('recordTurn', {
      spaceId: 'sdk-retry',
      body: { messages: [{ role: 'user', content: 'Once only.' }] },
    });
    expect(calls).toBe(2);
    expect(turn.spaceTurn).toBe(1);
    await sg.waitUntilSettled('sdk-retry');
    const status = await sg.call('getSpaceStatus', { spaceId: 'sdk-retry' });
    expect(status.turnCounter).toBe(1);
  });

  it('throws typed errors with the API code, status and issues', async () => {
    const caught = async (p: Promise<unknown>) =>
      p.then(
        () => null,
        (e: unknown) => e,
      );
    const ERRS = 'sdk-errors';
    await sg.call('recordTurn', {
      spaceId: ERRS,
      body: { messages: [{ role: 'user', content: 'Atlas uses pnpm.' }] },
    });
    await sg.waitUntilSettled(ERRS);

    const invalid = await caught(
      sg.call('searchEvents', { spaceId: ERRS, threadId: 's2', body: { query: 'x', limit: 99 } }),
    );
    expect(invalid).toBeInstanceOf(InvalidRequestError);
    expect(invalid).toMatchObject({
      status: 400,
      code: 'invalid_request',
      kind: 'invalid_request',
    });
    expect((invalid as StrataGateError).issues[0]).toMatchObject({ in: 'body', path: '/limit' });

    const missing = await caught(
      sg.call('getMemoryEvent', { spaceId: ERRS, eventId: 'evt_nothing' }),
    );
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ status: 404, code: 'memory_event_not_found' });

    const body = { turnId: 'fixed-1', messages: [{ role: 'user' as const, content: 'a' }] };
    await sg.call('recordTurn', { spaceId: ERRS, body });
    const reused = await caught(
      sg.call('recordTurn', {
        spaceId: ERRS,
        body: { ...body, messages: [{ role: 'user', content: 'b' }] },
      }),
    );
    expect(reused).toBeInstanceOf(ConflictError);
    expect(reused).toMatchObject({ status: 409, code: 'turn_id_reused', retryable: false });

    const found = await sg.call('searchEvents', {
      spaceId: ERRS,
      threadId: 's4',
      body: { query: 'Atlas' },
    });
    const rejected = await caught(
      sg.call('adoptEvidence', {
        spaceId: ERRS,
        threadId: 's4',
        body: { batchId: found.batchId, evidence_refs: ['event:not-in-batch'] },
      }),
    );
    expect(rejected).toBeInstanceOf(RejectedError);
    expect(rejected).toMatchObject({ status: 422, code: 'adoption_rejected' });

    const badKey = new StrataGate({ baseUrl: t.node.url!, apiKey: 'sg_wrong' });
    const unauthorized = await caught(badKey.call('listSpaces'));
    expect(unauthorized).toBeInstanceOf(UnauthorizedError);
    expect(unauthorized).toMatchObject({ status: 401, code: 'unauthorized' });

    const nowhere = new StrataGate({ baseUrl: 'http://127.0.0.1:9', apiKey: t.key, retries: 0 });
    const refused = await caught(nowhere.call('listSpaces'));
    expect(refused).toBeInstanceOf(ConnectionError);
    expect(refused).toMatchObject({ status: 0, code: 'connection_failed', retryable: true });
  });

  it("keeps each tenant to its own spaces: another tenant's space is not found", async () => {
    const { key } = await t.node.apiKeys.create('other-tenant', 'sdk test');
    const other = new StrataGate({ baseUrl: t.node.url!, apiKey: key });
    const status = other.call('getSpaceStatus', { spaceId: SPACE });
    await expect(status).rejects.toBeInstanceOf(NotFoundError);
    await expect(status).rejects.toMatchObject({ code: 'space_not_found' });
    const spaces = await other.call('listSpaces');
    expect(spaces.spaces).toEqual([]);
    // Its own space of the same name is its own.
    await other.call('recordTurn', {
      spaceId: SPACE,
      body: { messages: [{ role: 'user', content: 'other tenant' }] },
    });
    const mine = await other.waitUntilSettled(SPACE);
    expect(mine.turnCounter).toBe(1);
  });
});
