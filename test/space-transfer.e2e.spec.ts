import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOfflineProvider, type ModelPort } from '@stratagate/model';
import { describeBackend } from '@stratagate/store/testing';
import {
  describeWithKafka,
  freshTopic,
  kafkaBrokers,
} from '../libs/log/src/kafka/kafka.test-support.ts';
import { startTestNode, type TestNode } from './harness.ts';
import { buildRichSpace } from './support/rich-space.ts';
import { spaceDump } from './support/space-dump.ts';

/** The offline provider, counting every call: an import must make none. */
function countingModel(): ModelPort & { calls: number } {
  const offline = createOfflineProvider();
  const model = {
    name: offline.name,
    deterministic: offline.deterministic,
    calls: 0,
    summarizeBlock: (...args: Parameters<ModelPort['summarizeBlock']>) => {
      model.calls += 1;
      return offline.summarizeBlock(...args);
    },
    extractMemoryEvents: (...args: Parameters<NonNullable<ModelPort['extractMemoryEvents']>>) => {
      model.calls += 1;
      return offline.extractMemoryEvents!(...args);
    },
    proposeGraph: (...args: Parameters<NonNullable<ModelPort['proposeGraph']>>) => {
      model.calls += 1;
      return offline.proposeGraph!(...args);
    },
  };
  return model;
}

async function exportText(t: TestNode, spaceId: string, key = t.key): Promise<string> {
  const res = await t.node.http!.inject({
    method: 'GET',
    url: `/v1/spaces/${spaceId}/export`,
    headers: { authorization: `Bearer ${key}` },
  });
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
  return res.body;
}

async function importText(t: TestNode, spaceId: string, text: string, key = t.key) {
  const res = await t.node.http!.inject({
    method: 'POST',
    url: `/v1/spaces/${spaceId}/import`,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-ndjson' },
    payload: text,
  });
  return { status: res.statusCode, body: res.json() };
}

const SOURCE = { tenantId: 'local', spaceId: 'proj:atlas' };

// The source runs on the configured store (a Postgres server with DATABASE_URL), the first copy
// on the embedded store, the second copy back on the configured one: both directions between them.
describe(`space export and import (${describeBackend()} ⇄ pglite)`, () => {
  let source: TestNode;
  let embedded: TestNode;
  let server: TestNode;
  const models = { embedded: countingModel(), server: countingModel() };
  let file = '';
  let sourceDump: Record<string, unknown[]>;

  beforeAll(async () => {
    source = await startTestNode('transfer-source');
    await buildRichSpace(source, SOURCE.spaceId);
    sourceDump = await spaceDump(source.node, SOURCE);
    embedded = await startTestNode('transfer-embedded', {
      embedded: true,
      model: models.embedded,
    });
    server = await startTestNode('transfer-server', { model: models.server });
  });
  afterAll(async () => {
    await Promise.all([source?.stop(), embedded?.stop(), server?.stop()]);
  });

  it('exports every record with a versioned header, checksums and an end line', async () => {
    file = await exportText(source, SOURCE.spaceId);
    const lines = file
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    const version = await source.node.log.spaceVersion(SOURCE);
    expect(lines[0]).toMatchObject({
      kind: 'header',
      format: 'stratagate.space-export',
      formatVersion: 1,
      source: SOURCE,
      spaceVersion: version,
      schemaVersions: expect.objectContaining({ TurnRecorded: 1, GraphProjected: 1 }),
    });
    expect(lines.at(-1)).toMatchObject({ kind: 'end', records: version });
    expect(lines.slice(1, -1).map((l) => l.spaceVersion)).toEqual(
      Array.from({ length: version }, (_, i) => i + 1),
    );
    const types = new Set(lines.slice(1, -1).map((l) => l.type));
    for (const type of [
      'SpaceConfigured',
      'TurnRecorded',
      'BlockSealed',
      'BlockSummarized',
      'MemoryEventsExtracted',
      'GraphProjected',
      'AgentMemoryRecorded',
      'EvidenceBatchOpened',
      'EvidenceAssessed',
      'MemoryAdopted',
      'MemoryEventStateChanged',
    ]) {
      expect(types, type).toContain(type);
    }
    for (const line of lines) expect(line.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('imports into another tenant and space id on the embedded store: the same read model, no model call', async () => {
    const other = (await embedded.node.apiKeys.create('team-b', 'transfer test')).key;
    const res = await importText(embedded, 'atlas-copy', file, other);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const records = (await source.node.log.spaceVersion(SOURCE)) as number;
    expect(res.body).toMatchObject({
      source: SOURCE,
      target: { tenantId: 'team-b', spaceId: 'atlas-copy' },
      records,
      spaceVersion: records,
      resumedFrom: 0,
      idsRewritten: true,
    });
    await embedded.settle('atlas-copy', other);
    const copy = { tenantId: 'team-b', spaceId: 'atlas-copy' };
    expect(await spaceDump(embedded.node, copy)).toEqual(sourceDump);
    expect(models.embedded.calls).toBe(0);
    // Another tenant's key does not see it.
    expect((await embedded.request('GET', '/v1/spaces/atlas-copy/status')).status).toBe(404);
    // Importing the same file again finds it complete and appends nothing.
    const again = await importText(embedded, 'atlas-copy', file, other);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ resumedFrom: records, spaceVersion: records });
    expect(await embedded.node.log.spaceVersion(copy)).toBe(records);
  });

  it('moves the copy back onto the configured store under the source ids: equal again', async () => {
    const other = (await embedded.node.apiKeys.create('team-b', 'second export')).key;
    const second = await exportText(embedded, 'atlas-copy', other);
    const res = await importText(server, SOURCE.spaceId, file);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.idsRewritten).toBe(false);
    await server.settle(SOURCE.spaceId);
    expect(await spaceDump(server.node, SOURCE)).toEqual(sourceDump);
    // The same record ids as the source's: an exact copy.
    const ids = async (t: TestNode) =>
      (await t.node.log.readSpace(SOURCE, 0, 10_000)).map((r) => r.metadata.recordId);
    expect(await ids(server)).toEqual(await ids(source));
    // The embedded copy's own export, imported under yet another id: still the same memory.
    const res2 = await importText(server, 'atlas-third', second);
    expect(res2.status, JSON.stringify(res2.body)).toBe(200);
    await server.settle('atlas-third');
    expect(await spaceDump(server.node, { tenantId: 'local', spaceId: 'atlas-third' })).toEqual(
      sourceDump,
    );
    expect(models.server.calls).toBe(0);
  });

  it('refuses an edited line with its line number and writes nothing', async () => {
    const lines = file.split('\n');
    const at = lines.findIndex((l) => l.includes('"type":"TurnRecorded"') && l.includes('pnpm'));
    lines[at] = lines[at]!.replace('pnpm', 'yarn');
    expect(lines[at]).toContain('yarn');
    const res = await importText(embedded, 'edited', lines.join('\n'));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'export_file_invalid',
      details: { line: at + 1 },
    });
    expect(res.body.error.message).toMatch(
      new RegExp(`^line ${at + 1}: the checksum does not match`),
    );
    expect(await embedded.node.log.spaceVersion({ tenantId: 'local', spaceId: 'edited' })).toBe(0);
  });

  it('refuses a cut file with the line where it ends, and writes nothing', async () => {
    const space = { tenantId: 'local', spaceId: 'cut' };
    const lines = file.trimEnd().split('\n');
    // Cut inside a line.
    const inside = file.slice(0, file.indexOf('\n', file.length / 2) - 10);
    const cut = inside.split('\n').length;
    const res = await importText(embedded, 'cut', inside);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual({ line: cut });
    expect(res.body.error.message).toContain('cut short');
    // Cut between lines: the end line is missing.
    const whole = `${lines.slice(0, -1).join('\n')}\n`;
    const res2 = await importText(embedded, 'cut', whole);
    expect(res2.status).toBe(400);
    expect(res2.body.error).toMatchObject({
      code: 'export_file_invalid',
      details: { line: lines.length },
    });
    // A line taken out of the middle breaks the chain at the next one.
    const dropped = [...lines.slice(0, 5), ...lines.slice(6)].join('\n');
    const res3 = await importText(embedded, 'cut', `${dropped}\n`);
    expect(res3.body.error.details).toEqual({ line: 6 });
    expect(await embedded.node.log.spaceVersion(space)).toBe(0);
  });

  it('refuses what is not an export file, and a space that holds other records', async () => {
    const json = await embedded.node.http!.inject({
      method: 'POST',
      url: '/v1/spaces/other/import',
      headers: { authorization: `Bearer ${embedded.key}`, 'content-type': 'application/json' },
      payload: { records: [] },
    });
    expect(json.statusCode).toBe(400);
    expect(json.json().error).toMatchObject({ code: 'export_file_invalid', details: { line: 1 } });
    const empty = await importText(embedded, 'other', '');
    expect(empty.status).toBe(400);
    expect(empty.body.error.message).toBe('line 1: the file is empty');

    await embedded.request('POST', '/v1/spaces/busy/turns', {
      messages: [{ role: 'user', content: 'something else' }],
    });
    const busy = await importText(embedded, 'busy', file);
    expect(busy.status).toBe(409);
    expect(busy.body.error.code).toBe('space_not_empty');
    expect(await embedded.node.log.spaceVersion({ tenantId: 'local', spaceId: 'busy' })).toBe(1);
    const missing = await embedded.request('GET', '/v1/spaces/nothing-here/export');
    expect(missing.status).toBe(404);
  });
});

// Between the Postgres-table log and a Kafka topic (ADR 0007): the records are the same, so the
// memory is too.
describeWithKafka(
  `space export and import between the table log and Kafka (${describeBackend()})`,
  () => {
    let table: TestNode;
    let kafka: TestNode;
    const model = countingModel();

    beforeAll(async () => {
      table = await startTestNode('transfer-table');
      kafka = await startTestNode('transfer-kafka', {
        model,
        config: {
          STRATAGATE_LOG_BACKEND: 'kafka',
          KAFKA_BROKERS: kafkaBrokers.join(','),
          STRATAGATE_KAFKA_TOPIC: freshTopic('transfer'),
          STRATAGATE_KAFKA_SESSION_TIMEOUT_MS: '6000',
        },
      });
    });
    afterAll(async () => {
      await Promise.all([table?.stop(), kafka?.stop()]);
    });

    it(
      'moves a space from the table log to Kafka and back: the same read model, no model call',
      { timeout: 600_000 },
      async () => {
        await buildRichSpace(table, SOURCE.spaceId);
        const dump = await spaceDump(table.node, SOURCE);
        const file = await exportText(table, SOURCE.spaceId);

        const res = await importText(kafka, 'on-kafka', file);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        await kafka.settle('on-kafka', undefined, 300_000);
        const onKafka = { tenantId: 'local', spaceId: 'on-kafka' };
        expect(await spaceDump(kafka.node, onKafka)).toEqual(dump);
        expect(model.calls).toBe(0);

        const back = await exportText(kafka, 'on-kafka');
        const res2 = await importText(table, 'back-again', back);
        expect(res2.status, JSON.stringify(res2.body)).toBe(200);
        await table.settle('back-again');
        expect(await spaceDump(table.node, { tenantId: 'local', spaceId: 'back-again' })).toEqual(
          dump,
        );
      },
    );
  },
);
