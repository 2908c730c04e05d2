import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { describeBackend } from '@stratagate/store';
import { startTestNode, turn, type TestNode } from './harness.ts';

// A node that appends without a projector in the process (the ingest role apart from the
// background roles, ADR 0030) keeps the log's planner statistics itself: nothing else would on
// PGlite, and without them each append's idempotency look-up reads the whole space (ADR 0029).
describe(`log upkeep on a node without a projector (${describeBackend()})`, () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode('log_upkeep', { roles: 'ingest' });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('analyses the log once it has grown, with no projector to do it', async () => {
    const analysed = async () =>
      Number(
        (
          await sql<{ n: number }>`
            select count(*)::int as n from pg_stats
            where schemaname = 'log' and tablename = 'records'`.execute(t.node.logDatabase.db)
        ).rows[0]!.n,
      );
    // Enough records for more than the few pages a table is left alone at (64 KiB).
    for (let i = 1; i <= 150; i++) {
      const res = await t.request('POST', '/v1/spaces/upkeep/turns', turn(i));
      expect(res.status).toBe(202);
    }
    const deadline = Date.now() + 10_000;
    while ((await analysed()) === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await analysed()).toBeGreaterThan(0);
  });
});
