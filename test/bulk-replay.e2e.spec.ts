import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeRecord } from '@stratagate/domain';
import {
  createCoreProjection,
  coreProjectionDefinition,
  createProjector,
  readCheckpoint,
  rebuildProjection,
  RebuildAborted,
} from '@stratagate/projector';
import { dumpReadModel, searchWriteBuffering } from '@stratagate/store';
import { describeBackend } from '@stratagate/store/testing';
import { startTestNode, type TestNode } from './harness.ts';
import { ENGLISH_SCENARIOS } from './scenarios/english.scenarios.ts';
import { CHINESE_SCENARIOS } from './scenarios/chinese.scenarios.ts';
import { ingestSession } from './scenarios/through-the-api.ts';

/*
 * Bulk replay (ADR 0044): a rebuild applies its batches with the search index's write buffer
 * (postings, term and status counts written once per batch). Over a log of real scenarios —
 * turns, seals, summaries, extractions with supersedes, graph projections, pins and forgets — an
 * interrupted and resumed rebuild ends with the same read model as a projection that applies one
 * record per batch with every change written at once (the path before the buffer).
 */
const SCENARIOS = [...ENGLISH_SCENARIOS.slice(0, 4), ...CHINESE_SCENARIOS.slice(0, 1)];
const RULES = { defaultDecayLambda: 0.9 };

describe(`bulk replay equals a record-by-record projection (${describeBackend()})`, () => {
  let t: TestNode;
  const spaceOf = (name: string) => `bulk-${name}`.slice(0, 60);

  beforeAll(async () => {
    t = await startTestNode('bulk_replay');
    for (const s of SCENARIOS) {
      await t.request('PUT', `/v1/spaces/${spaceOf(s.name)}/settings`, { blockSize: 4 });
    }
    const rounds = Math.max(...SCENARIOS.map((s) => s.sessions.length));
    for (let round = 0; round < rounds; round += 1) {
      await Promise.all(SCENARIOS.map((s) => ingestSession(t, s, round, spaceOf(s.name))));
      for (const s of SCENARIOS) await t.settle(spaceOf(s.name), undefined, 120_000);
    }
    // Status moves of indexed events: a pin and a forget in every space.
    for (const s of SCENARIOS) {
      const S = `/v1/spaces/${spaceOf(s.name)}`;
      const list = await t.request('GET', `${S}/memory-events?limit=200`);
      const active = (list.body.events as { id: string; status: string }[]).filter(
        (e) => e.status === 'active',
      );
      if (active[0]) await t.request('POST', `${S}/memory-events/${active[0].id}/pin`);
      if (active[1]) await t.request('POST', `${S}/memory-events/${active[1].id}/forget`);
      await t.settle(spaceOf(s.name), undefined, 120_000);
    }
    await t.node.consolidator?.stop();
    await t.node.projector?.stop();
  }, 600_000);

  afterAll(async () => {
    searchWriteBuffering.enabled = true;
    await t?.stop();
  });

  it('an interrupted bulk rebuild resumes and ends equal to a record-by-record projection', async () => {
    const db = t.node.database.db;
    const log = t.node.log;
    const head = await log.headPosition();
    const types = new Set((await log.readAll(0, head)).map((r) => decodeRecord(r)?.type));
    for (const type of [
      'TurnRecorded',
      'BlockSealed',
      'BlockSummarized',
      'MemoryEventsExtracted',
      'GraphProjected',
      'MemoryEventStateChanged',
    ]) {
      expect(types, type).toContain(type);
    }

    // The reference: one record per batch, every change written at once.
    searchWriteBuffering.enabled = false;
    const reference = createProjector({
      db,
      log,
      schema: 'rm_bulk_reference',
      projection: createCoreProjection(RULES),
      batchSize: 1,
    });
    while ((await reference.catchUp()) < head) await new Promise((r) => setTimeout(r, 20));
    await reference.stop();
    searchWriteBuffering.enabled = true;

    const base = t.node.config.STRATAGATE_READ_MODEL_SCHEMA;
    // Stops after its first committed batch, as a crash would.
    const stopped = new AbortController();
    stopped.abort();
    const build = {
      db,
      log,
      base,
      definition: coreProjectionDefinition,
      rules: RULES,
      batchSize: 20,
    };
    await expect(
      rebuildProjection({ ...build, builderId: 'first', signal: stopped.signal }),
    ).rejects.toBeInstanceOf(RebuildAborted);
    const building = `${base}_r2`;
    const reached = await readCheckpoint(db, building, 'core');
    expect(reached).toBeGreaterThan(0);
    expect(reached).toBeLessThan(head);

    const result = await rebuildProjection({ ...build, staleMs: 0, drainMs: 0 });
    expect(result).toMatchObject({ liveSchema: building, resumedFrom: reached });

    const rebuilt = await dumpReadModel(db, building);
    const expected = await dumpReadModel(db, 'rm_bulk_reference');
    // The index the buffer writes: event documents in more than one status, postings of them.
    const statuses = new Set(
      (rebuilt.search_docs as { doc_kind: string; status: string }[])
        .filter((d) => d.doc_kind === 'event')
        .map((d) => d.status),
    );
    expect([...statuses].sort()).toEqual(expect.arrayContaining(['active', 'forgotten']));
    expect(rebuilt.search_postings!.length).toBeGreaterThan(100);
    for (const table of Object.keys(expected)) {
      expect(rebuilt[table], table).toEqual(expected[table]);
    }
  }, 600_000);
});
