/**
 * `npm run fuzz -- --runs N [--seed S] [--operation ID]`: the fuzz suite of test/fuzz with N cases
 * per family and operation (or one operation), on PGlite or on the Postgres server of
 * DATABASE_URL. Prints the counts as JSON; a contract breach stops the run with fast-check's
 * report of the smallest failing case and its seed.
 */
import { parseArgs } from 'node:util';
import { describeBackend } from '@stratagate/store/testing';
import { startTestNode } from '../harness.ts';
import { emptyCounts, fuzzOperations, prepareTarget } from './openapi-fuzz.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '50' },
    seed: { type: 'string' },
    operation: { type: 'string' },
  },
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs takes a positive integer');

const t = await startTestNode('fuzz_run', {
  listen: true,
  config: { STRATAGATE_REQUEST_TIMEOUT_MS: '2000' },
});
const counts = emptyCounts();
const started = Date.now();
try {
  const target = await prepareTarget(t, Number(new URL(t.node.url!).port));
  await fuzzOperations(
    target,
    { runs, ...(values.seed ? { seed: Number(values.seed) } : {}) },
    counts,
  );
  console.log(
    JSON.stringify(
      {
        backend: describeBackend(),
        runs,
        seconds: Math.round((Date.now() - started) / 1000),
        ...counts,
      },
      null,
      2,
    ),
  );
} finally {
  await t.stop();
}
