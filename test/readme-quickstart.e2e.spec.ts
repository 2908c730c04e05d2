import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServer, type SpawnedServer } from './support/spawn-server.ts';

/** The first `sh` block after the README's Quickstart heading, exactly as a reader copies it. */
export function quickstartBlock(readme: string): string {
  const section = readme.slice(readme.indexOf('\n## Quickstart'));
  const block = /```sh\n([\s\S]*?)\n```/.exec(section)?.[1];
  if (!section.startsWith('\n## Quickstart') || !block) {
    throw new Error('README.md has no ```sh block under "## Quickstart"');
  }
  return block;
}

/** Runs `script` in bash as a user's terminal would, with `KEY` exported and `API` set. */
async function runInBash(script: string, env: Record<string, string>) {
  const child = spawn('bash', ['-e', '-u', '-c', script], {
    env: {
      PATH: `${dirname(process.execPath)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      HOME: process.env.HOME ?? tmpdir(),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, stdout, stderr, lines: stdout.split('\n').filter((l) => l.length > 0) };
}

const jsonLines = (lines: string[]) =>
  lines.flatMap((l) => {
    if (!l.startsWith('{')) return [];
    return [JSON.parse(l) as Record<string, unknown>];
  });

describe('the README quickstart, run as written against a fresh server (PGlite)', () => {
  let root: string;
  let server: SpawnedServer;
  let firstAcks: Record<string, unknown>[] = [];
  const script = quickstartBlock(
    readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8'),
  );

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'sg-quickstart-'));
    server = await spawnServer(['--data-dir', join(root, 'data')]);
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('posts, closes, recalls, searches, assesses and adopts; each step answers as the README says', async () => {
    const run = await runInBash(script, { API: server.url, KEY: server.key });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const json = jsonLines(run.lines);

    // 1. Three turns acknowledged, in order.
    firstAcks = json.slice(0, 3);
    expect(json.slice(0, 3).map((j) => [j.turnId, j.spaceTurn])).toEqual([
      ['s1-1', 1],
      ['s1-2', 2],
      ['s1-3', 3],
    ]);
    // 2. Closing the session sealed the three turns into one block.
    expect(json[3]).toMatchObject({ threadId: 's1', sealed: true, turnRange: [1, 3] });
    // 3. The memory events, including the plan that is not done.
    expect(run.stdout).toContain('We switched Atlas to pnpm because installs are faster.');
    expect(run.stdout).toContain('We finish the prototype next week.');
    // 4. Recall in a new session brings the pnpm event back: it appears a second time.
    expect(run.stdout.split('We switched Atlas to pnpm').length - 1).toBeGreaterThanOrEqual(2);
    // 5. The search opened batch_1 with an event ref.
    const opened = run.lines.find((l) => l.startsWith('batch_'));
    expect(opened).toMatch(/^batch_1 event:evt_[0-9a-f]+$/);
    const ref = opened!.split(' ')[1]!;
    // 6. The assessment stands as sufficient, citing that ref.
    expect(json.find((j) => 'verdict' in j)).toMatchObject({
      batchId: 'batch_1',
      verdict: 'sufficient',
      evidenceRefs: [ref],
      rejectedEvidenceRefs: [],
      nextStrategy: 'answer',
    });
    // 7. The adoption recorded the batch and reinforced the event.
    expect(json.find((j) => 'receiptId' in j)).toMatchObject({
      batchId: 'batch_1',
      batchStatus: 'recorded',
      incremented: 1,
      eventIds: [ref.slice('event:'.length)],
    });
    const event = await fetch(
      `${server.url}/v1/spaces/demo/memory-events/${ref.slice('event:'.length)}`,
      { headers: { authorization: `Bearer ${server.key}` } },
    );
    expect(((await event.json()) as { weight: { mentionCount: number } }).weight.mentionCount).toBe(
      2,
    );
  }, 300_000);

  it('runs again: the turns are replayed, nothing is appended, the next batch opens', async () => {
    const run = await runInBash(script, { API: server.url, KEY: server.key });
    expect(run.code).toBe(0);
    const json = jsonLines(run.lines);
    // The same answers as the first time: same positions, nothing appended.
    expect(json.slice(0, 3)).toEqual(firstAcks);
    expect(json[3]).toMatchObject({ sealed: false });
    expect(run.lines.find((l) => l.startsWith('batch_'))).toMatch(/^batch_2 /);
    expect(json.find((j) => 'receiptId' in j)).toMatchObject({ batchStatus: 'recorded' });
  }, 300_000);
});
