import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, turn, type TestNode } from './harness.ts';
import { tablesHolding } from './support/every-table.ts';
import { spaceDump } from './support/space-dump.ts';

const BIN = join(import.meta.dirname, '..', 'bin', 'stratagate.mjs');

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, DATABASE_URL: '', STRATAGATE_LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

// `stratagate spaces export|import` on embedded data directories, as an operator runs them with
// the server stopped.
describe('stratagate spaces export and import (embedded data directories)', () => {
  let dir = '';
  let dump: Record<string, unknown[]>;
  const space = { tenantId: 'local', spaceId: 'cli-space' };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sg-transfer-cli-'));
    const source = await startTestNode('cli-source', { dataDir: join(dir, 'a') });
    try {
      await source.request('PUT', '/v1/spaces/cli-space/settings', { blockSize: 2 });
      for (let i = 1; i <= 5; i++) {
        await source.request('POST', '/v1/spaces/cli-space/turns', turn(i, 'chat'));
      }
      await source.settle('cli-space');
      dump = await spaceDump(source.node, space);
    } finally {
      await source.stop();
    }
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  // Five CLI processes, each loading the sources through tsx: minutes on a busy machine.
  it(
    'exports to a file and imports it into another directory, tenant and space',
    { timeout: 600_000 },
    async () => {
      const file = join(dir, 'cli-space.ndjson');
      const out = await cli([
        'spaces',
        'export',
        '--data-dir',
        join(dir, 'a'),
        '--tenant',
        'local',
        '--space',
        'cli-space',
        '--out',
        file,
      ]);
      expect(out.code, out.stderr).toBe(0);
      const text = await readFile(file, 'utf8');
      const records = text.trimEnd().split('\n').length - 2;
      expect(out.stderr).toContain(`exported ${records} of ${records} records`);

      const imported = await cli([
        'spaces',
        'import',
        '--data-dir',
        join(dir, 'b'),
        '--tenant',
        'other',
        '--space',
        'copy',
        '--in',
        file,
      ]);
      expect(imported.code, imported.stderr).toBe(0);
      expect(imported.stderr).toContain(`importing ${records} of ${records} records`);
      expect(imported.stdout).toContain(
        `imported ${records} records of local/cli-space into other/copy; space version ${records}`,
      );

      // A damaged file: refused with its line, nothing written.
      const lines = text.split('\n');
      lines[3] = lines[3]!.replace('pottery', 'cooking');
      await writeFile(join(dir, 'bad.ndjson'), lines.join('\n'));
      const bad = await cli([
        'spaces',
        'import',
        '--data-dir',
        join(dir, 'b'),
        '--tenant',
        'other',
        '--space',
        'bad',
        '--in',
        join(dir, 'bad.ndjson'),
      ]);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain('bad.ndjson: line 4: the checksum does not match');
      expect(bad.stderr).toContain('nothing was imported');

      let target: TestNode | null = null;
      try {
        target = await startTestNode('cli-target', { dataDir: join(dir, 'b') });
        const key = (await target.node.apiKeys.create('other', 'cli test')).key;
        await target.settle('copy', key);
        expect(await spaceDump(target.node, { tenantId: 'other', spaceId: 'copy' })).toEqual(dump);
        expect(await target.node.log.spaceVersion({ tenantId: 'other', spaceId: 'bad' })).toBe(0);
      } finally {
        await target?.stop();
      }

      // The operator erases the copy's thread: nothing of it is left in the directory.
      const erased = await cli([
        'spaces',
        'erase',
        '--data-dir',
        join(dir, 'b'),
        '--tenant',
        'other',
        '--space',
        'copy',
        '--thread',
        'chat',
      ]);
      expect(erased.code, erased.stderr).toBe(0);
      expect(erased.stdout).toMatch(
        /^erased thread chat of other\/copy \(erase_[0-9a-f]+, \d+ keys deleted\)/,
      );
      const missing = await cli([
        'spaces',
        'erase',
        '--data-dir',
        join(dir, 'b'),
        '--tenant',
        'other',
        '--space',
        'copy',
        '--thread',
        'chat',
      ]);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain("thread 'chat' was not found");
      let after: TestNode | null = null;
      try {
        after = await startTestNode('cli-after', { dataDir: join(dir, 'b') });
        expect(await tablesHolding(after.node.database.db, 'pottery')).toEqual([]);
        expect(await tablesHolding(after.node.logDatabase.db, 'pottery')).toEqual([]);
      } finally {
        await after?.stop();
      }
    },
  );
});
