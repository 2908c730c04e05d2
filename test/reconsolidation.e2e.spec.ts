import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOfflineProvider, type ModelPort } from '@stratagate/model';
import { requestReconsolidation } from '@stratagate/runtime';
import { describeBackend } from '@stratagate/store/testing';
import { startTestNode, type TestNode } from './harness.ts';

/** The offline provider, with the extractor version it reports switchable (v1 → v2). */
function versionedModel() {
  const offline = createOfflineProvider();
  const state = { version: 'extract@1' };
  const model: ModelPort = {
    name: 'versioned-offline',
    deterministic: true,
    summarizeBlock: (input, options) => offline.summarizeBlock(input, options),
    extractMemoryEvents: async (input, options) => ({
      ...(await offline.extractMemoryEvents!(input, options)),
      promptVersion: state.version,
    }),
    proposeGraph: (input, options) => offline.proposeGraph!(input, options),
  };
  return { model, state };
}

describe(`operator re-consolidation (MM-EVT-20) (${describeBackend()})`, () => {
  let t: TestNode;
  const m = versionedModel();
  beforeAll(async () => {
    t = await startTestNode('reconsolidate', { model: m.model });
    await t.request('PUT', '/v1/spaces/r/settings', { blockSize: 1 });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('appends new extraction records with the newer version; old records stay, old events are archived', async () => {
    await t.request('POST', '/v1/spaces/r/turns', {
      occurredAt: '2023-05-08T13:56:00Z',
      messages: [
        {
          role: 'user',
          name: 'Caroline',
          content: 'I went to a LGBTQ support group yesterday and it was so powerful.',
        },
        { role: 'assistant', content: 'That sounds meaningful.' },
      ],
    });
    await t.settle('r');
    const before = (await t.request('GET', '/v1/spaces/r/memory-events')).body.events;
    expect(before.length).toBeGreaterThan(0);

    m.state.version = 'extract@2';
    const space = { tenantId: 'local', spaceId: 'r' };
    const n = await requestReconsolidation({
      db: t.node.database.db,
      log: t.node.log,
      schema: t.node.config.STRATAGATE_READ_MODEL_SCHEMA,
      space,
      reason: 'extractor v2',
    });
    expect(n).toBe(1);
    await t.settle('r');

    const all = (await t.request('GET', '/v1/spaces/r/memory-events')).body.events;
    const archived = all.filter((e: { status: string }) => e.status === 'archived');
    const active = all.filter((e: { status: string }) => e.status === 'active');
    expect(archived.map((e: { id: string }) => e.id).sort()).toEqual(
      before.map((e: { id: string }) => e.id).sort(),
    );
    expect(active).toHaveLength(before.length);
    expect(active.map((e: { id: string }) => e.id)).not.toEqual(
      before.map((e: { id: string }) => e.id),
    );

    const records = await t.node.log.readSpace(space, 0, 1000);
    const extracted = records.filter((r) => r.type === 'MemoryEventsExtracted');
    expect(
      extracted.map((r) => (r.data as { model: { promptVersion: string } }).model.promptVersion),
    ).toEqual(['extract@1', 'extract@2']);
    const block = (await t.request('GET', `/v1/spaces/r/blocks/${before[0].sourceBlockId}`)).body;
    expect(block.status).toBe('ready');
  });
});
