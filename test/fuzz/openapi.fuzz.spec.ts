import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeBackend } from '@stratagate/store/testing';
import { startTestNode, type TestNode } from '../harness.ts';
import {
  FAMILIES,
  fuzzOperations,
  operationsOf,
  prepareTarget,
  type FuzzTarget,
} from './openapi-fuzz.ts';

/** Cases per family and operation in `npm test`; `npm run fuzz -- --runs N` runs more. */
const RUNS = 2;

describe(`bad requests derived from the OpenAPI document (${describeBackend()})`, () => {
  let t: TestNode;
  let target: FuzzTarget;
  beforeAll(async () => {
    t = await startTestNode('fuzz', {
      listen: true,
      // Cases that announce more body than they send wait this long for it.
      config: { STRATAGATE_REQUEST_TIMEOUT_MS: '2000' },
    });
    target = await prepareTarget(t, Number(new URL(t.node.url!).port));
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('answers every operation below 500, in the envelope, and leaves the space as it was after a 4xx', async () => {
    const doc = (await t.node.http!.inject({ method: 'GET', url: '/openapi.json' })).json();
    const operations = operationsOf(doc);
    const counts = await fuzzOperations(target, { runs: RUNS });
    // Every operation and every family was exercised.
    expect(Object.keys(counts.byOperation).sort()).toEqual(operations.map((o) => o.id).sort());
    expect(Object.keys(counts.byFamily).sort()).toEqual([...FAMILIES].sort());
    expect(Object.keys(counts.byStatus).filter((s) => Number(s) >= 500)).toEqual([]);
    // Hundreds of requests over a real socket: more than one test's usual time on a busy machine.
  }, 360_000);
});
