import { afterEach, describe, expect, it } from 'vitest';
import { ProjectionBackpressure } from '@stratagate/ingest';
import { describeBackend } from '@stratagate/store/testing';
import { startTestNode, turn, type TestNode } from './harness.ts';

// Turns wait while the projection lag is over its bound (ADR 0031). The worker-thread wiring (the
// projector's reports posted to the main thread) is shown in background-thread.e2e.spec.ts.
describe(`backpressure from projection lag (${describeBackend()})`, () => {
  let t: TestNode | undefined;
  afterEach(async () => {
    await t?.stop();
    t = undefined;
  });

  /** Resolves with whether `p` settled within `ms`. */
  const settlesWithin = (p: Promise<unknown>, ms: number) =>
    Promise.race([
      p.then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms)),
    ]);

  it('holds a turn while the oldest record not projected is older than the bound, and lets it go on the report that brings the lag back', async () => {
    // Ingest alone: the test is the projector, reporting by hand. The longest wait is far beyond
    // the test, so only a report can let the held turn go.
    const gate = new ProjectionBackpressure({ maxLagMs: 50, maxWaitMs: 600_000 });
    t = await startTestNode('backpressure_hold', { roles: 'ingest', node: { backpressure: gate } });
    const first = await t.request('POST', '/v1/spaces/bp/turns', turn(1));
    expect(first.status).toBe(202);
    expect(gate.backlog()).toBe(first.body.position);
    await new Promise((r) => setTimeout(r, 100));
    expect(gate.lagMs()).toBeGreaterThan(50);

    const held = t.request('POST', '/v1/spaces/bp/turns', turn(2));
    expect(await settlesWithin(held, 500)).toBe(false);
    // Nothing of the held turn was appended while it waited.
    expect(gate.backlog()).toBe(first.body.position);

    gate.applied(first.body.position);
    const second = await held;
    expect(second.status).toBe(202);
    expect(second.body.position).toBeGreaterThan(first.body.position);
    expect(gate.backlog()).toBe(second.body.position - first.body.position);
  });

  it('a node with ingest and the projector feeds its own gate from the projector’s progress', async () => {
    t = await startTestNode('backpressure_local');
    const gate = t.node.backpressure;
    expect(gate).toBeInstanceOf(ProjectionBackpressure);
    expect(gate!.maxLagMs).toBe(3_000);
    // Which appends the route noted (whether or not the projector has reported them yet).
    const noted: number[] = [];
    const appended = gate!.appended.bind(gate);
    gate!.appended = (position, space) => {
      noted.push(position);
      appended(position, space);
    };
    const positions: number[] = [];
    for (let i = 1; i <= 8; i++) {
      const res = await t.request('POST', '/v1/spaces/bp/turns', turn(i));
      expect(res.status).toBe(202);
      positions.push(res.body.position);
    }
    expect(noted).toEqual(positions);
    await t.settle('bp');
    // The report follows the batch's commit: wait for it, then nothing is left behind.
    const deadline = Date.now() + 10_000;
    while (gate!.backlog() > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(gate!.backlog()).toBe(0);
    expect(gate!.lagMs()).toBe(0);
  });

  it('is off with STRATAGATE_MAX_PROJECTION_LAG_MS=0', async () => {
    t = await startTestNode('backpressure_off', {
      config: { STRATAGATE_MAX_PROJECTION_LAG_MS: '0' },
    });
    expect(t.node.backpressure).toBeNull();
  });
});
