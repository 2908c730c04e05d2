import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeBackend } from '@stratagate/store/testing';
import { startTestNode, type TestNode } from './harness.ts';

/*
 * The Python client's unittest suite (clients/python/tests) against a node this spec starts:
 * its operation list against the served document, a whole round, typed errors, tenancy.
 */

const run = promisify(execFile);
const python = await run('python3', ['--version']).then(
  () => 'python3',
  () => null,
);
if (!python) console.warn('SKIPPED: the Python client suite: no python3 on PATH');

describe.skipIf(!python)(`Python client against a node (${describeBackend()})`, () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode('python_client', { listen: true });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('passes its unittest suite', async () => {
    const { key: other } = await t.node.apiKeys.create('py-other', 'python test');
    const result = await run(python!, ['-m', 'unittest', 'discover', '-s', 'tests', '-v'], {
      cwd: join(import.meta.dirname, '../clients/python'),
      env: {
        ...process.env,
        STRATAGATE_URL: t.node.url!,
        STRATAGATE_TEST_KEY: t.key,
        STRATAGATE_TEST_OTHER_KEY: other,
      },
    }).catch((error: { stderr?: string }) => ({ failed: true, stderr: error.stderr ?? '' }));
    expect('failed' in result ? result.stderr : '').toBe('');
    expect(result.stderr).toMatch(/^OK/m);
  });
});
