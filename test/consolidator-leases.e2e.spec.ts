import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsolidator } from '@stratagate/consolidator';
import { createOfflineProvider, type ModelPort } from '@stratagate/model';
import { describeBackend } from '@stratagate/store/testing';
import { startTestNode, turn, type TestNode } from './harness.ts';

/**
 * Consolidators share the work by leases on spaces (ADR 0042). Two consolidators run by hand on
 * one store: a space held by one is left alone by the other; once the holder's lease has expired
 * (a process stalled or killed) the other claims it and runs its jobs; the first one's late
 * result is then discarded. And one consolidator runs several spaces at once, never two jobs of
 * one space.
 */
describe(`consolidators share spaces by leases (${describeBackend()})`, () => {
  let t: TestNode;
  const offline = createOfflineProvider();

  /** Seals `blocks` blocks of two turns in `space` and waits until they are projected. */
  async function dueBlocks(space: string, blocks: number) {
    expect((await t.request('PUT', `/v1/spaces/${space}/settings`, { blockSize: 2 })).status).toBe(
      200,
    );
    for (let i = 1; i <= 2 * blocks; i++) {
      expect((await t.request('POST', `/v1/spaces/${space}/turns`, turn(i))).status).toBe(202);
    }
    for (;;) {
      const s = await t.request('GET', `/v1/spaces/${space}/status`);
      if (s.body.projectedPosition >= s.body.logPosition && s.body.blocks.total === blocks) return;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** The offline model, whose summaries say who wrote them and wait for `gate` first. */
  function modelOf(name: string, gate?: (blockId: string) => Promise<void>) {
    const calls: string[] = [];
    const model: ModelPort = {
      ...offline,
      async summarizeBlock(input, options) {
        calls.push(input.blockId);
        await gate?.(input.blockId);
        const result = await offline.summarizeBlock(input, options);
        return {
          ...result,
          output: { ...result.output, title: `${name}: ${result.output.title}` },
        };
      },
    };
    return { model, calls };
  }

  const consolidatorOf = (model: ModelPort, concurrency = 4) =>
    createConsolidator({
      db: t.node.database.db,
      log: t.node.log,
      schema: () => t.node.readModel.get(),
      model,
      concurrency,
      // Long: in these tests only the test ends a lease, as a stall or a kill would.
      leaseMs: 600_000,
    });

  const summaries = async (space: string) => {
    const tenant = await tenantOf();
    const records = await t.node.log.readSpace({ tenantId: tenant, spaceId: space }, 0, 1000);
    return records
      .filter((r) => r.type === 'BlockSummarized')
      .map((r) => (r.data as { title: string }).title);
  };
  // The tenant of the key the node created on its first start.
  const tenantOf = async () => t.node.config.STRATAGATE_TENANT;

  beforeAll(async () => {
    // No consolidator role: the ones under test are created by hand.
    t = await startTestNode('leases', { roles: 'ingest,projector,query' });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('leaves a held space alone, takes it over once the lease expired, and drops the late result', async () => {
    await dueBlocks('fenced', 1);
    let entered!: () => void;
    const inModel = new Promise<void>((resolve) => (entered = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const a = modelOf('A', async () => {
      entered();
      await released;
    });
    const b = modelOf('B');
    const first = consolidatorOf(a.model);
    const second = consolidatorOf(b.model);

    const late = first.runDueJobs();
    await inModel;
    // A holds the space while its model call runs: B finds the job due and does not run it.
    expect(await second.runDueJobs()).toBe(0);
    expect(b.calls).toEqual([]);

    // A stalls past its lease (a frozen or killed process): the lease expires.
    const { rows } = await sql<{ n: number }>`
      update control.job_leases set expires_at = clock_timestamp() - interval '1 second'
      where unit like 'space:%/fenced' returning 1 as n`.execute(t.node.database.db);
    expect(rows).toHaveLength(1);
    expect(await second.runDueJobs()).toBeGreaterThan(0);
    expect(b.calls).toHaveLength(1);

    // A's model answers now; its lease's token moved on, so its result is not appended.
    release();
    await late;
    expect(a.calls).toEqual(b.calls);
    const titles = await summaries('fenced');
    expect(titles).toHaveLength(1);
    expect(titles[0]).toMatch(/^B: /);
  });

  it('runs several spaces at once and never two jobs of one space', async () => {
    const spaces = ['conc-1', 'conc-2', 'conc-3', 'conc-4', 'conc-5', 'conc-6'];
    for (const space of spaces) await dueBlocks(space, 2);
    const tenant = await tenantOf();
    const blockSpace = new Map<string, string>();
    for (const space of spaces) {
      const { rows } = await sql<{ block_id: string }>`
        select block_id from ${sql.table(`${await t.node.readModel.get()}.blocks`)}
        where tenant_id = ${tenant} and space_id = ${space}`.execute(t.node.database.db);
      for (const r of rows) blockSpace.set(r.block_id, space);
    }
    const inFlight = new Map<string, number>();
    let now = 0;
    let most = 0;
    let mostInOneSpace = 0;
    let full!: () => void;
    const allBusy = new Promise<void>((resolve) => (full = resolve));
    const { model, calls } = modelOf('C', async (blockId) => {
      const space = blockSpace.get(blockId)!;
      inFlight.set(space, (inFlight.get(space) ?? 0) + 1);
      now += 1;
      most = Math.max(most, now);
      mostInOneSpace = Math.max(mostInOneSpace, inFlight.get(space)!);
      if (now === 4) full();
      // Each call waits until four are in flight at once (or a generous while, so that a
      // consolidator running fewer fails the assertion below instead of hanging).
      await Promise.race([allBusy, new Promise((r) => setTimeout(r, 10_000))]);
      inFlight.set(space, inFlight.get(space)! - 1);
      now -= 1;
    });
    const consolidator = consolidatorOf(model, 4);
    while (calls.length < 2 * spaces.length) {
      if ((await consolidator.runDueJobs()) === 0) await new Promise((r) => setTimeout(r, 20));
    }
    expect(most).toBe(4);
    expect(mostInOneSpace).toBe(1);
    for (const space of spaces) {
      expect(await summaries(space)).toHaveLength(2);
    }
  });
});
