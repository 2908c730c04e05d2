import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsolidator } from '@stratagate/consolidator';
import { createOfflineProvider, type ModelPort } from '@stratagate/model';
import type { GraphEdgeRow, GraphFactRow, GraphNodeRow, ReadModelTables } from '@stratagate/store';
import { describeBackend } from '@stratagate/store/testing';
import { startTestNode, type TestNode } from './harness.ts';
import { THIRTY_TURNS } from './scenarios/english.scenarios.ts';
import { ingestSession, type NodeView } from './scenarios/through-the-api.ts';
import type { Scenario } from './scenarios/scenario.ts';

/**
 * A space's derivations read what the ones before them wrote: a graph job the graph, an
 * extraction the timeline. Here the projector runs only when the test says so, and the same
 * conversation is consolidated twice: with the projector caught up after every pass of one job
 * per stage, and with it held back for a whole pass of every due job (as under load). The graph
 * must come out the same, with one node per name.
 */
describe(`a space's graph does not depend on how far the projector lags (${describeBackend()})`, () => {
  let t: TestNode;

  beforeAll(async () => {
    // No consolidator role (the test runs one by hand); the projector's loop is stopped below.
    t = await startTestNode('job_order', { roles: 'ingest,projector,query' });
    await t.node.projector!.stop();
  });
  afterAll(async () => {
    await t?.stop();
  });

  /**
   * Projects until every record of `space` is applied. One `catchUp` is not enough on a shared
   * PostgreSQL server: it stops at the log's safe horizon, which a transaction still open anywhere
   * on the server (another test file's) holds back, and a consolidator pass then finds its space
   * waiting for its last record and runs nothing.
   */
  async function project(space: string) {
    for (;;) {
      await t.node.projector!.catchUp();
      // A space the projector has not reached yet is not known to the status read (404).
      const status = await t.request('GET', `/v1/spaces/${space}/status`);
      expect([200, 404]).toContain(status.status);
      if (status.status === 200 && status.body.projectedPosition >= status.body.logPosition) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** A consolidator of `jobsPerPass` jobs per stage; `settle` runs it, projecting after each pass. */
  async function consolidatorFor(
    space: string,
    blockSize: number,
    jobsPerPass: number,
    model: ModelPort = createOfflineProvider(),
  ) {
    const settings = await t.request('PUT', `/v1/spaces/${space}/settings`, { blockSize });
    expect(settings.status).toBe(200);
    const consolidator = createConsolidator({
      db: t.node.database.db,
      log: t.node.log,
      schema: () => t.node.readModel.get(),
      model,
      batchSize: jobsPerPass,
    });
    return async function settle() {
      await project(space);
      while ((await consolidator.runDueJobs()) > 0) await project(space);
    };
  }

  /** Every session of `s`, each consolidated until no job is left. */
  async function consolidate(s: Scenario, space: string, jobsPerPass: number) {
    const settle = await consolidatorFor(space, 4, jobsPerPass);
    for (const round of s.sessions.keys()) {
      await ingestSession(t, s, round, space);
      await settle();
    }
    const graph = await t.request('GET', `/v1/spaces/${space}/graph/nodes?limit=100`);
    return graph.body.nodes as NodeView[];
  }

  /** The graph by names: each node's current facts and outgoing edges. */
  function byName(nodes: NodeView[]) {
    const nameOf = new Map(nodes.map((n) => [n.id, n.name]));
    return nodes
      .map((n) => ({
        name: n.name,
        facts: n.currentFacts.map((f) => `${f.key}=${String(f.value)}`).sort(),
        edges: n.currentEdges
          .filter((e) => e.fromId === n.id)
          .map((e) => `${e.relation}->${nameOf.get(e.toId)}`)
          .sort(),
      }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  it('plans each graph job against the graph of the ones before it', async () => {
    const caughtUp = byName(await consolidate(THIRTY_TURNS, 'caught-up', 1));
    const behind = await consolidate(THIRTY_TURNS, 'behind', 16);
    const names = behind.map((n) => n.name);
    // Two jobs planned against the same graph each created Nina (and Omar, Globex, Marco).
    expect(names).toEqual([...new Set(names)]);
    expect(byName(behind).find((n) => n.name === 'Nina')?.facts).toEqual(['diet=pescatarian']);
    expect(byName(behind)).toEqual(caughtUp);
  });

  /** Every fact and edge the space's graph holds, current or not, by node names. */
  async function storedGraph(space: string) {
    const rm = t.node.database.db.withSchema(
      await t.node.readModel.get(),
    ) as Kysely<ReadModelTables>;
    const [nodes, facts, edges] = await Promise.all(
      (['graph_nodes', 'graph_facts', 'graph_edges'] as const).map((table) =>
        rm.selectFrom(table).selectAll().where('space_id', '=', space).execute(),
      ),
    );
    const nameOf = new Map((nodes as GraphNodeRow[]).map((n) => [n.node_id, n.name]));
    return [
      ...(facts as GraphFactRow[]).map(
        (f) => `${nameOf.get(f.node_id)}.${f.key}=${String(f.value)} (${f.status})`,
      ),
      ...(edges as GraphEdgeRow[]).map(
        (e) => `${nameOf.get(e.from_id)} ${e.relation} ${nameOf.get(e.to_id)} (${e.status})`,
      ),
    ].sort();
  }

  it("judges a block's sources as its extraction left them, not as later blocks changed them", async () => {
    // Block 1 says where Nina lives; block 2, a month later in the same thread, that she moved.
    const turns: [string, string, string][] = [
      ['2026-10-05T09:00:00Z', 'Nina', 'I live in Boston now, the commute is much shorter.'],
      ['2026-10-05T09:01:00Z', 'Omar', 'Nice, say hi to the harbour for me.'],
      ['2026-11-05T09:00:00Z', 'Nina', 'Big news: I moved to Denver.'],
      ['2026-11-05T09:01:00Z', 'Omar', 'Wow! How is it?'],
    ];
    async function say(space: string, from: number, to: number) {
      for (const [i, [at, name, content]] of turns.entries()) {
        if (i < from || i >= to) continue;
        const res = await t.request('POST', `/v1/spaces/${space}/turns`, {
          turnId: `turn-${i + 1}`,
          threadId: 'talk',
          occurredAt: at,
          messages: [{ role: 'user', name, content }],
        });
        expect(res.status).toBe(202);
      }
    }
    // Live: block 1's graph job runs before block 2 is said.
    const settleLive = await consolidatorFor('live', 2, 16);
    await say('live', 0, 2);
    await settleLive();
    await say('live', 2, 4);
    await settleLive();
    const live = await storedGraph('live');
    expect(live).toContain('Nina lives_in Boston (superseded)');
    expect(live).toContain('Nina lives_in Denver (active)');
    // A bulk import whose extractions ran ahead: block 1's graph job runs after block 2's
    // extraction superseded "I live in Boston".
    const offline = createOfflineProvider();
    const withoutGraph: ModelPort = {
      name: offline.name,
      deterministic: true,
      summarizeBlock: (input, options) => offline.summarizeBlock(input, options),
      extractMemoryEvents: (input, options) => offline.extractMemoryEvents!(input, options),
    };
    const extractAhead = await consolidatorFor('bulk', 2, 16, withoutGraph);
    const thenGraph = await consolidatorFor('bulk', 2, 16);
    await say('bulk', 0, 4);
    await extractAhead();
    await thenGraph();
    expect(await storedGraph('bulk')).toEqual(live);
  });
});
