import { afterEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { Admission, SpaceKey } from '@stratagate/ingest';
import { describeBackend } from '@stratagate/store/testing';
import { startTestNode, turn, type TestNode } from './harness.ts';

/** A pasted text of about `chars` characters: prose lines with names, numbers and code. */
const pasted = (chars: number) => {
  const lines: string[] = [];
  for (let i = 0, size = 0; size < chars; i++) {
    const line = `Line ${i}: Priya moved release ${i % 7} to January ${(i % 28) + 1}; const v${i} = f(${i});`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n').slice(0, chars);
};

/** Polls `check` until it holds: waits for a state, never asserts a duration. */
async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 240_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

// One tenant never stalls another (ADR 0043): a noisy tenant's huge turn that raw search has not
// indexed holds back its own space only; readiness reports the stalled lane.
describe(`a noisy and a quiet tenant (${describeBackend()})`, () => {
  let t: TestNode | undefined;
  afterEach(async () => {
    await t?.stop();
    t = undefined;
  });

  it('while the noisy turn is unindexed the quiet tenant is admitted at once and its /batches and /assess answer; the noisy space waits, and readiness shows the stalled lane', async () => {
    t = await startTestNode('noisy_quiet', {
      config: {
        STRATAGATE_MAX_PROJECTION_LAG_MS: '1000',
        // Far beyond the test: only the projector's progress can let a held turn go.
        STRATAGATE_BACKPRESSURE_MAX_WAIT_MS: '600000',
        STRATAGATE_READY_STALL_MS: '2000',
      },
    });
    const node = t.node;
    const gate = node.backpressure!;
    const admissions: { space: string; admission: Admission }[] = [];
    const admit = gate.admit.bind(gate);
    gate.admit = async (space: SpaceKey) => {
      const admission = await admit(space);
      admissions.push({ space: space.spaceId, admission });
      return admission;
    };
    const noisyKey = (await node.apiKeys.create('noisy', 'test')).key;
    const noisy = { tenantId: 'noisy', spaceId: 'paste' };
    const quiet = (path: string, body?: unknown) =>
      t!.request(body === undefined ? 'GET' : 'POST', `/v1/spaces/quiet${path}`, body);

    // The quiet tenant has a batch open before the noisy one arrives.
    expect((await quiet('/turns', turn(1, 'q'))).status).toBe(202);
    await t.settle('quiet');
    const search = await quiet('/threads/q/search/events', { query: 'pottery workshop' });
    expect(search.status).toBe(200);

    // Raw search cannot index the noisy space: its seal stays queued, as behind a huge turn
    // that takes long to index.
    const schema = await node.readModel.get();
    const docs = sql.id(schema, 'search_docs');
    await sql`alter table ${docs} add constraint noisy_held check (space_id <> 'paste') not valid`.execute(
      node.database.db,
    );
    // One-turn blocks: the huge turn is sealed in its own append.
    expect(
      (await t.request('PUT', '/v1/spaces/paste/settings', { blockSize: 1 }, noisyKey)).status,
    ).toBe(200);
    const content = pasted(380_000);
    const big = await t.request(
      'POST',
      '/v1/spaces/paste/turns',
      {
        turnId: 'big-1',
        threadId: 'n',
        messages: [
          { role: 'user', name: 'Lee', content: content.slice(0, 190_000) },
          { role: 'user', name: 'Lee', content: content.slice(190_000) },
          { role: 'assistant', content: 'Noted.' },
        ],
      },
      noisyKey,
    );
    expect(big.status).toBe(202);
    // The projector has applied the noisy records (the seal queued its block): only raw search
    // is behind. The noisy space lags past the bound; so does the log as a whole.
    const queue = sql.id(schema, 'message_index_queue');
    await until(
      async () =>
        (
          await sql<{ n: number }>`select count(*)::int as n from ${queue}
            where space_id = 'paste'`.execute(node.database.db)
        ).rows[0]!.n > 0,
      'the noisy seal to be queued',
    );
    await until(() => gate.lagMs(noisy) > gate.maxLagMs, 'the noisy space to lag');
    expect(gate.lagMs()).toBeGreaterThan(gate.maxLagMs);

    // The quiet tenant: turns admitted without waiting, reads that do not answer 503.
    for (let i = 2; i <= 4; i++) {
      expect((await quiet('/turns', turn(i, 'q'))).status).toBe(202);
    }
    const quietAdmissions = admissions.filter((a) => a.space === 'quiet');
    expect(quietAdmissions).toHaveLength(4);
    for (const a of quietAdmissions) expect(a.admission.waitedMs).toBe(0);
    const batches = await quiet('/threads/q/batches');
    expect(batches.status).toBe(200);
    expect(batches.body.batches.map((b: { batchId: string }) => b.batchId)).toContain(
      search.body.batchId,
    );
    const assessed = await quiet('/threads/q/assess', {
      batchId: search.body.batchId,
      verdict: 'wrong',
      evidence_refs: [],
      fit: 'nothing about pottery yet',
      missing: 'the workshop plan',
      next_strategy: 'search_raw',
    });
    expect(assessed.status).toBe(200);
    // The noisy space is still behind: the huge turn was never indexed meanwhile.
    const status = await t.request('GET', '/v1/spaces/paste/status', undefined, noisyKey);
    expect(status.body.projectedPosition).toBeLessThan(status.body.logPosition);

    // The noisy tenant's next turn waits for its own space.
    let heldDone = false;
    const held = t
      .request('POST', '/v1/spaces/paste/turns', turn(1, 'n2'), noisyKey)
      .finally(() => (heldDone = true));

    // The lane fails on every slice and never moves: readiness says so. The held turn is still
    // held then: only progress in its own space can let it go.
    await until(async () => {
      const ready = await node.http!.inject({ method: 'GET', url: '/readyz' });
      return ready.statusCode === 503 && ready.json().reason === 'indexing_stalled';
    }, 'readiness to report the stalled lane');
    expect(heldDone).toBe(false);

    // Indexing can go on: the noisy turn is indexed, its held turn admitted, readiness back.
    await sql`alter table ${docs} drop constraint noisy_held`.execute(node.database.db);
    const after = await held;
    expect(after.status).toBe(202);
    const noisyAdmission = admissions.find((a) => a.space === 'paste' && a.admission.waitedMs > 0);
    expect(noisyAdmission?.admission.timedOut).toBe(false);
    await t.settle('paste', noisyKey);
    await until(async () => {
      const ready = await node.http!.inject({ method: 'GET', url: '/readyz' });
      return ready.statusCode === 200;
    }, 'readiness to come back');
  }, 600_000);

  it('readiness reports a stopped projector with work waiting', async () => {
    t = await startTestNode('noisy_stopped', { config: { STRATAGATE_READY_STALL_MS: '2000' } });
    const ready = () => t!.node.http!.inject({ method: 'GET', url: '/readyz' });
    expect((await t.request('POST', '/v1/spaces/s/turns', turn(1))).status).toBe(202);
    await t.settle('s');
    await until(async () => (await ready()).statusCode === 200, 'readiness');
    await t.node.projector!.stop();
    expect((await t.request('POST', '/v1/spaces/s/turns', turn(2))).status).toBe(202);
    await until(async () => (await ready()).statusCode === 503, 'readiness to report the stall');
    expect((await ready()).json()).toEqual({ status: 'not_ready', reason: 'projection_stalled' });
  }, 300_000);
});
