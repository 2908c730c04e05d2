import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createOfflineProvider,
  createOpenAiCompatibleProvider,
  type ModelPort,
} from '@stratagate/model';
import {
  fakeOpenAiReply,
  startFakeOpenAiServer,
  type FakeOpenAiServer,
} from '@stratagate/model/testing';
import { createCoreProjection, createProjector } from '@stratagate/projector';
import { dumpReadModel } from '@stratagate/store';
import { describeBackend } from '@stratagate/store/testing';
import {
  describeWithKafka,
  freshTopic,
  kafkaBrokers,
} from '../libs/log/src/kafka/kafka.test-support.ts';
import { startTestNode, type TestNode } from './harness.ts';
import { tablesHolding } from './support/every-table.ts';
import { spaceDump } from './support/space-dump.ts';

const S = 'imports';
const P = `/v1/spaces/${S}`;
const SPACE = { tenantId: 'local', spaceId: S };
// Planted in one imported memory: found nowhere once the import is undone.
const SECRET = 'Zqximportsecret7781';

const NPM = 'Project Atlas uses npm for installs.';
const candidate = (title: string, summary: string, over: Record<string, unknown> = {}) => ({
  memoryKind: 'fact',
  category: 'project',
  title,
  summary,
  scope: 'project',
  ...over,
});
const exportText = (candidates: unknown[], over: Record<string, unknown> = {}) =>
  JSON.stringify(
    {
      format: 'stratagate.external-memory.v2',
      sourceType: 'external_ai_memory_export',
      sourceSystem: 'OtherAI',
      coverage: 'partial',
      candidates,
      ...over,
    },
    null,
    2,
  );
const CANDIDATES = [
  candidate(NPM, NPM),
  candidate('Project Atlas switched to pnpm', 'Project Atlas now installs with pnpm.'),
  candidate(
    'Caroline teaches pottery',
    `Caroline teaches a pottery class on Saturdays ${SECRET}.`,
    {
      temporal: { originalText: 'every Saturday', precision: 'unknown' },
    },
  ),
  candidate('Caroline teaches pottery', `Caroline teaches a pottery class on Saturdays ${SECRET}.`),
];

type Item = {
  index: number;
  action: string;
  existingEventIds: string[];
  requiresConfirmation: boolean;
  decidedBy: string;
  confidence: number;
  eventId: string | null;
};

describe(`external memory import (${describeBackend()})`, () => {
  let t: TestNode;
  let npmEvent = '';
  const head = () => t.node.log.headPosition();

  beforeAll(async () => {
    t = await startTestNode('external-import');
    await t.request('POST', `${P}/turns`, {
      threadId: 'chat',
      messages: [
        { role: 'user', content: 'Which package manager does Atlas use?' },
        { role: 'assistant', content: 'npm.' },
      ],
    });
    const remembered = await t.request('POST', `${P}/threads/chat/remember`, { content: NPM });
    expect(remembered.status).toBe(200);
    npmEvent = remembered.body.eventId;
    await t.settle(S);
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('refuses bad exports with the candidate index and field, storing nothing', async () => {
    const before = await head();
    const cases: [unknown, number, string][] = [
      [{ text: 'I remember you like tea.' }, 400, 'import_not_json'],
      [
        { text: exportText([candidate('ok', 'ok'), candidate('x'.repeat(161), 'too long')]) },
        400,
        'import_format_invalid',
      ],
      [
        { text: exportText(Array.from({ length: 201 }, (_, i) => candidate(`m${i}`, 's'))) },
        400,
        'import_format_invalid',
      ],
      [
        { text: exportText([candidate('a', 'b', { colour: 'red' })]) },
        400,
        'import_format_invalid',
      ],
      [{ text: JSON.stringify({ format: 'other', candidates: [] }) }, 400, 'import_format_invalid'],
      [{ text: exportText([]), user_id: 'u1' }, 400, 'invalid_request'],
      [{ text: exportText([]), topK: 21 }, 400, 'invalid_request'],
      [{ text: '' }, 400, 'invalid_request'],
    ];
    for (const [body, status, code] of cases) {
      const res = await t.request('POST', `${P}/imports`, { importId: 'bad', ...(body as object) });
      expect(res.status, JSON.stringify(res.body)).toBe(status);
      expect(res.body.error.code).toBe(code);
    }
    const limit = await t.request('POST', `${P}/imports`, {
      text: exportText([candidate('ok', 'ok'), candidate('x'.repeat(161), 'too long')]),
    });
    expect(limit.body.error.details.problems).toEqual([
      { candidate: 1, field: 'title', message: 'longer than 160 characters' },
    ]);
    expect(limit.body.error.message).toBe('candidate 1, field title: longer than 160 characters');
    expect((await t.request('GET', `${P}/imports/bad`)).status).toBe(404);
    expect(await head()).toBe(before);
  });

  let baseline: Record<string, unknown[]> = {};
  let preview: { importId: string; baseRevision: number; items: Item[]; state: string } = {
    importId: '',
    baseRevision: 0,
    items: [],
    state: '',
  };

  it('previews: fingerprint, offline decisions and confirmation needs, and writes nothing', async () => {
    baseline = await spaceDump(t.node, SPACE);
    const before = await head();
    const res = await t.request('POST', `${P}/imports`, {
      text: '```json\n' + exportText(CANDIDATES) + '\n```',
      importId: 'imp-atlas',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    preview = res.body;
    expect(await head()).toBe(before);
    expect(res.body).toMatchObject({
      importId: 'imp-atlas',
      state: 'awaiting_confirmation',
      baseRevision: await t.node.log.spaceVersion(SPACE),
      recovered: false,
      source: { format: 'v2', sourceSystem: 'OtherAI', coverage: 'partial' },
      counts: { candidates: 4, decided: 4, needsConfirmation: 1, add: 1, supersede: 1, ignore: 2 },
      commit: null,
    });
    const items = res.body.items as Item[];
    expect(items.map((i) => [i.action, i.decidedBy, i.requiresConfirmation])).toEqual([
      ['IGNORE', 'fingerprint', false],
      ['SUPERSEDE', 'offline', true],
      ['ADD', 'offline', false],
      ['IGNORE', 'fingerprint', false],
    ]);
    expect(items[0]).toMatchObject({ existingEventIds: [npmEvent], confidence: 1 });
    expect(items[1]).toMatchObject({ existingEventIds: [npmEvent] });
    expect(res.body.items[1].matches.map((m: { id: string }) => m.id)).toContain(npmEvent);
    // Read back, the same preview.
    expect((await t.request('GET', `${P}/imports/imp-atlas`)).body).toEqual(res.body);
    // The same id with another text is refused; with the same text it answers the same.
    const reused = await t.request('POST', `${P}/imports`, {
      text: exportText([candidate('a', 'b')]),
      importId: 'imp-atlas',
    });
    expect(reused.status).toBe(409);
    expect(reused.body.error.code).toBe('import_id_reused');
  });

  it('needs confirmation for every item of a recovered export, even a sure ADD', async () => {
    const res = await t.request('POST', `${P}/imports`, {
      text: `Sure! Here is the export:\n${exportText([candidate('Kim lives in Oslo', 'Kim has lived in Oslo since 2019.')])}\nAnything else?`,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ recovered: true, state: 'awaiting_confirmation' });
    expect(res.body.items[0]).toMatchObject({ action: 'ADD', requiresConfirmation: true });
    expect(res.body.items[0].confidence).toBeGreaterThanOrEqual(0.85);
  });

  it('confirms items only with targets among their matches', async () => {
    const bad = await t.request('POST', `${P}/imports/imp-atlas/confirm`, {
      items: [{ index: 1, action: 'SUPERSEDE', existingEventIds: ['evt_elsewhere'] }],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({
      code: 'import_item_invalid',
      issues: [{ in: 'body', path: '/items/0/existingEventIds' }],
    });
    const noTarget = await t.request('POST', `${P}/imports/imp-atlas/confirm`, {
      items: [{ index: 1, action: 'MERGE' }],
    });
    expect(noTarget.body.error.code).toBe('import_item_invalid');
    const missing = await t.request('POST', `${P}/imports/imp-atlas/confirm`, {
      items: [{ index: 9, action: 'ADD' }],
    });
    expect(missing.body.error.code).toBe('import_item_invalid');
    const ok = await t.request('POST', `${P}/imports/imp-atlas/confirm`, {
      items: [{ index: 1, action: 'SUPERSEDE', existingEventIds: [npmEvent] }],
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ state: 'ready', counts: { needsConfirmation: 0 } });
    expect(ok.body.items[1]).toMatchObject({ confirmed: true, action: 'SUPERSEDE' });
  });

  it('refuses a commit on a stale revision ("preview is stale") and writes nothing', async () => {
    const before = await head();
    const wrong = await t.request('POST', `${P}/imports/imp-atlas/commit`, {
      baseRevision: preview.baseRevision - 1,
    });
    expect(wrong.status).toBe(409);
    expect(wrong.body.error.code).toBe('preview_stale');
    expect(wrong.body.error.message).toMatch(/^preview is stale/);
    expect(await head()).toBe(before);
  });

  let committed: { commit: { sourceBlockId: string; addedEventIds: string[] } } | null = null;

  it('commits atomically: new events citing a block with the whole text, the old one superseded', async () => {
    const res = await t.request('POST', `${P}/imports/imp-atlas/commit`, {
      baseRevision: preview.baseRevision,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    committed = res.body;
    expect(res.body).toMatchObject({
      state: 'committed',
      counts: { add: 1, supersede: 1, ignore: 2 },
      commit: { changedEventIds: [npmEvent] },
    });
    const added = res.body.commit.addedEventIds as string[];
    expect(added).toHaveLength(2);
    const old = (await t.request('GET', `${P}/memory-events/${npmEvent}`)).body;
    expect(old).toMatchObject({ status: 'superseded', supersededBy: added[0] });
    const pnpm = (await t.request('GET', `${P}/memory-events/${added[0]}`)).body;
    expect(pnpm).toMatchObject({
      title: 'Project Atlas switched to pnpm',
      sourceBlockId: res.body.commit.sourceBlockId,
      status: 'active',
    });
    const thread = `external-import:${res.body.commit.sourceBlockId}`;
    const context = await t.request('GET', `${P}/threads/${thread}/context`);
    expect(context.status).toBe(200);
    expect(JSON.stringify(context.body)).toContain(SECRET);
    // Committing again answers the same.
    const again = await t.request('POST', `${P}/imports/imp-atlas/commit`, {
      baseRevision: preview.baseRevision,
    });
    expect(again.body.commit).toEqual(res.body.commit);
    // The graph job of the source block sees the new events only.
    await t.settle(S);
    const { rows } = await sql<{ graph_status: string; event_count: number }>`
      select graph_status, event_count from ${sql.table(`${await t.node.readModel.get()}.blocks`)}
      where space_id = ${S} and block_id = ${res.body.commit.sourceBlockId}`.execute(
      t.node.database.db,
    );
    expect(rows).toEqual([{ graph_status: 'completed', event_count: 2 }]);
  });

  it('rebuilds the same read model from the log, without a model', async () => {
    const db = t.node.database.db;
    const end = await head();
    const projector = createProjector({
      db,
      log: t.node.log,
      schema: 'rm_import_rebuild',
      projection: createCoreProjection(),
    });
    while ((await projector.catchUp()) < end) await new Promise((r) => setTimeout(r, 20));
    const rebuilt = await dumpReadModel(db, 'rm_import_rebuild');
    expect(rebuilt).toEqual(await dumpReadModel(db, await t.node.readModel.get()));
    await sql`drop schema rm_import_rebuild cascade`.execute(db);
  });

  it('undoes the import: the space as before it, and no byte of its text anywhere', async () => {
    const res = await t.request('POST', `${P}/imports/imp-atlas/undo`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ state: 'undone', commit: committed!.commit });
    expect(res.body.undo.position).toBeGreaterThan(0);
    await t.settle(S);
    expect(await spaceDump(t.node, SPACE)).toEqual(baseline);
    expect(await tablesHolding(t.node.database.db, SECRET)).toEqual([]);
    const old = (await t.request('GET', `${P}/memory-events/${npmEvent}`)).body;
    expect(old).toMatchObject({ status: 'active', supersededBy: null });
    for (const id of committed!.commit.addedEventIds) {
      expect((await t.request('GET', `${P}/memory-events/${id}`)).status).toBe(404);
    }
    const again = await t.request('POST', `${P}/imports/imp-atlas/undo`);
    expect(again.body.undo).toEqual(res.body.undo);
    const read = await t.request('GET', `${P}/imports/imp-atlas`);
    expect(read.body.items.map((i: Item) => i.action)).toEqual([
      'IGNORE',
      'SUPERSEDE',
      'ADD',
      'IGNORE',
    ]);
    expect(JSON.stringify(read.body)).not.toContain(SECRET);
    // Nothing left to commit or confirm.
    const closed = await t.request('POST', `${P}/imports/imp-atlas/confirm`, {
      items: [{ index: 2, action: 'IGNORE' }],
    });
    expect(closed.body.error.code).toBe('import_closed');
  });

  it("confines imports to the key's tenant: another tenant neither sees nor changes them", async () => {
    const other = (await t.node.apiKeys.create('tenant-other', 'test')).key;
    const read = await t.request('GET', `${P}/imports/imp-atlas`, undefined, other);
    expect(read.status).toBe(404);
    expect(read.body.error.code).toBe('import_not_found');
    const undo = await t.request('POST', `${P}/imports/imp-atlas/undo`, undefined, other);
    expect(undo.status).toBe(404);
    // Its own import of the same id is its own.
    const own = await t.request(
      'POST',
      `${P}/imports`,
      { text: exportText([candidate('Ola rows', 'Ola rows on Sundays.')]), importId: 'imp-atlas' },
      other,
    );
    expect(own.status).toBe(200);
    expect(own.body.state).toBe('ready');
    expect((await t.request('GET', `${P}/imports/imp-atlas`)).body.state).toBe('undone');
  });

  it('answers 404 for an unknown import and 409 for undoing one not committed', async () => {
    expect((await t.request('GET', `${P}/imports/imp-none`)).body.error.code).toBe(
      'import_not_found',
    );
    const open = await t.request('POST', `${P}/imports`, {
      text: exportText([candidate('Una likes jazz', 'Una listens to jazz.')]),
      importId: 'imp-open',
    });
    expect(open.body.state).toBe('ready');
    const undo = await t.request('POST', `${P}/imports/imp-open/undo`);
    expect(undo.status).toBe(409);
    expect(undo.body.error.code).toBe('import_not_committed');
  });
});

describe(`external memory import with a model decider (${describeBackend()})`, () => {
  let t: TestNode;
  let server: FakeOpenAiServer;

  beforeAll(async () => {
    server = await startFakeOpenAiServer();
    const openai = createOpenAiCompatibleProvider({
      baseUrl: server.baseUrl,
      model: 'decider',
      sleep: () => Promise.resolve(),
      maxRetries: 0,
    });
    // The node's own offline provider for blocks; the model only decides imports.
    const model: ModelPort = {
      ...createOfflineProvider(),
      decideImport: (input, options) => openai.decideImport!(input, options),
    };
    t = await startTestNode('external-import-model', { model });
    await t.request('POST', `${P}/turns`, {
      threadId: 'chat',
      messages: [{ role: 'user', content: 'hello' }],
    });
    await t.settle(S);
  });
  afterAll(async () => {
    await t?.stop();
    await server?.close();
  });

  it('resumes an interrupted analysis without deciding a candidate twice', async () => {
    const text = exportText([
      candidate('Noa plays chess', 'Noa plays chess every evening.'),
      candidate('Noa moved to Lyon', 'Noa moved to Lyon in 2021.'),
    ]);
    server.enqueue(
      fakeOpenAiReply.json({
        action: 'ADD',
        existingEventIds: [],
        reason: 'new',
        confidence: 0.95,
      }),
      fakeOpenAiReply.status(400, { error: { message: 'bad request' } }),
    );
    const first = await t.request('POST', `${P}/imports`, { text, importId: 'imp-resume' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ state: 'failed', counts: { decided: 1 } });
    expect(first.body.error).toBeTruthy();
    expect(server.requestCount).toBe(2);

    server.enqueue(
      fakeOpenAiReply.json({ action: 'ADD', existingEventIds: [], reason: 'new', confidence: 0.7 }),
    );
    const resumed = await t.request('POST', `${P}/imports`, { text, importId: 'imp-resume' });
    expect(resumed.body).toMatchObject({ state: 'awaiting_confirmation', error: null });
    expect(server.requestCount).toBe(3);
    expect(resumed.body.items.map((i: Item) => [i.decidedBy, i.requiresConfirmation])).toEqual([
      ['model', false],
      ['model', true],
    ]);
    const committed = await t.request('POST', `${P}/imports/imp-resume/commit`, {
      baseRevision: resumed.body.baseRevision,
    });
    expect(committed.status).toBe(200);
    // The unreviewed item commits as IGNORE.
    expect(committed.body.items.map((i: Item) => i.action)).toEqual(['ADD', 'IGNORE']);
    expect(committed.body.commit.addedEventIds).toHaveLength(1);
  });
});

// On Kafka the undo rebuilds the space from what its consumer group applied (ADR 0012, 0046).
describeWithKafka(`external memory import on the Kafka log (${describeBackend()})`, () => {
  let t: TestNode;
  const topic = freshTopic('import');

  beforeAll(async () => {
    t = await startTestNode('external-import-kafka', {
      config: {
        STRATAGATE_LOG_BACKEND: 'kafka',
        KAFKA_BROKERS: kafkaBrokers.join(','),
        STRATAGATE_KAFKA_TOPIC: topic,
        STRATAGATE_KAFKA_SESSION_TIMEOUT_MS: '6000',
      },
    });
    await t.request('POST', `${P}/turns`, {
      threadId: 'chat',
      messages: [{ role: 'user', content: 'hello' }],
    });
    await t.settle(S, undefined, 300_000);
  });
  afterAll(async () => {
    await t?.stop();
  });

  it(
    'commits and undoes an import, leaving no byte of it in any table',
    { timeout: 600_000 },
    async () => {
      const before = await spaceDump(t.node, SPACE);
      const preview = await t.request('POST', `${P}/imports`, {
        text: exportText([CANDIDATES[2]]),
        importId: 'imp-kafka',
      });
      expect(preview.body.state).toBe('ready');
      const commit = await t.request('POST', `${P}/imports/imp-kafka/commit`, {
        baseRevision: preview.body.baseRevision,
      });
      expect(commit.status, JSON.stringify(commit.body)).toBe(200);
      await t.settle(S, undefined, 300_000);
      expect((await tablesHolding(t.node.database.db, SECRET)).length).toBeGreaterThan(0);
      const undo = await t.request('POST', `${P}/imports/imp-kafka/undo`);
      expect(undo.status, JSON.stringify(undo.body)).toBe(200);
      await t.settle(S, undefined, 300_000);
      expect(await tablesHolding(t.node.database.db, SECRET)).toEqual([]);
      expect(await spaceDump(t.node, SPACE)).toEqual(before);
    },
  );
});
