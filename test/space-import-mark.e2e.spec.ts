import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCoreProjection, createProjector } from '@stratagate/projector';
import { importingSpaces } from '@stratagate/store';
import { describeBackend } from '@stratagate/store/testing';
import { startTestNode, turn, type TestNode } from './harness.ts';

const COPY = { tenantId: 'local', spaceId: 'copy' };

/*
 * ADR 0045: the consolidator skips a space marked as importing. An HTTP import keeps the mark
 * until the read model has applied the copy's last record, not only until its records are in
 * the log: a half-projected copy looks like blocks without their summaries.
 */
describe(`an HTTP space import stays marked until the copy is projected (${describeBackend()})`, () => {
  let t: TestNode;

  beforeAll(async () => {
    // No projector and no consolidator: the test applies the records itself, when it chooses.
    t = await startTestNode('import_mark', { config: { STRATAGATE_ROLES: 'ingest,query' } });
    for (let i = 1; i <= 6; i++) {
      const res = await t.request('POST', '/v1/spaces/source/turns', turn(i, 'chat'));
      expect(res.status).toBe(202);
    }
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('replies, and clears the mark, only once the read model holds every record', async () => {
    const exported = await t.node.http!.inject({
      method: 'GET',
      url: '/v1/spaces/source/export',
      headers: { authorization: `Bearer ${t.key}` },
    });
    expect(exported.statusCode).toBe(200);
    let replied = false;
    const importing = t.node
      .http!.inject({
        method: 'POST',
        url: `/v1/spaces/${COPY.spaceId}/import`,
        headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/x-ndjson' },
        payload: exported.body,
      })
      .finally(() => {
        replied = true;
      });

    const db = t.node.database.db;
    const marked = async () => (await importingSpaces(db)).has('local/copy');
    const source = await t.node.log.spaceVersion({ tenantId: 'local', spaceId: 'source' });
    const deadline = Date.now() + 30_000;
    while ((await t.node.log.spaceVersion(COPY)) < source) {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((r) => setTimeout(r, 20));
    }
    // Every record is in the log, none applied: the mark stays, and the reply waits.
    await new Promise((r) => setTimeout(r, 500));
    expect(await marked()).toBe(true);
    expect(replied).toBe(false);

    const projector = createProjector({
      db,
      log: t.node.log,
      schema: await t.node.readModel.get(),
      projection: createCoreProjection(),
    });
    const head = await t.node.log.headPosition();
    while ((await projector.catchUp()) < head) await new Promise((r) => setTimeout(r, 20));
    const res = await importing;
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ records: source, spaceVersion: source });
    expect(await marked()).toBe(false);
    const status = await t.request('GET', `/v1/spaces/${COPY.spaceId}/status`);
    expect(status.status).toBe(200);
  });
});
