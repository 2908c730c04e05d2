import { afterEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { describeBackend } from '@stratagate/store/testing';
import { startTestNode, turn, type TestNode } from './harness.ts';

// A node that appends without a projector in the process (the ingest role apart from the
// background roles, ADR 0030) keeps the log's planner statistics itself: nothing else would on
// PGlite, and without them each append's idempotency look-up reads the whole space (ADR 0029).
// Where a projector elsewhere in the process keeps them (the background thread on a server), the
// node leaves them to it: two checks at once both found the table grown and ran two ANALYZEs.
describe(`log upkeep on a node without a projector (${describeBackend()})`, () => {
  // Each test stops its node: the upkeep's once-a-second check is per schema name in the process,
  // so a node still running would take the check of the next one's log.
  let running: TestNode | null = null;
  afterEach(async () => {
    await running?.stop();
    running = null;
  });

  const analysed = async (t: TestNode) =>
    Number(
      (
        await sql<{ n: number }>`
          select count(*)::int as n from pg_stats
          where schemaname = 'log' and tablename = 'records'`.execute(t.node.logDatabase.db)
      ).rows[0]!.n,
    );

  /** A node with the ingest role alone and a log grown past the pages a table is left alone at. */
  async function grownLog(label: string, logUpkeep?: boolean) {
    const t = await startTestNode(label, {
      roles: 'ingest',
      ...(logUpkeep === undefined ? {} : { node: { logUpkeep } }),
    });
    running = t;
    // Only the node analyses here: a server's autovacuum could otherwise do it first.
    await sql`alter table log.records set (autovacuum_enabled = false)`.execute(
      t.node.logDatabase.db,
    );
    // Enough records for more than the few pages a table is left alone at (64 KiB).
    for (let i = 1; i <= 150; i++) {
      const res = await t.request('POST', `/v1/spaces/${label}/turns`, turn(i));
      expect(res.status).toBe(202);
    }
    return t;
  }

  it('analyses the log once it has grown, with no projector to do it', async () => {
    const t = await grownLog('log_upkeep');
    const deadline = Date.now() + 10_000;
    while ((await analysed(t)) === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await analysed(t)).toBeGreaterThan(0);
  });

  it('leaves the log alone when told a projector elsewhere in the process keeps it', async () => {
    const t = await grownLog('log_upkeep_off', false);
    // Three times the upkeep's interval (1 s): the node above analyses within it.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(await analysed(t)).toBe(0);
  });
});
