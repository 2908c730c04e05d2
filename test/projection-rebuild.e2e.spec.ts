import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  coreProjectionDefinition,
  createCoreProjection,
  createProjector,
  projectionStatus,
  readProjectionVersion,
  rebuildProjection,
  schemaExists,
  type RebuildProgress,
} from '@stratagate/projector';
import { loadConfig, startNode } from '@stratagate/runtime';
import { dumpReadModel } from '@stratagate/store';
import { describeBackend, openTestDatabase } from '@stratagate/store/testing';
import { startTestNode, turn, type TestNode } from './harness.ts';
import {
  describeWithKafka,
  freshTopic,
  kafkaBrokers,
} from '../libs/log/src/kafka/kafka.test-support.ts';

// Rule A is the default fading λ of spaces that never configured one; rule B changes it.
const RULE_A = '0.3';
const B = { defaultDecayLambda: 0.9 };
const BIN = join(import.meta.dirname, '..', 'bin', 'stratagate.mjs');

describe(`projection rebuild side by side (${describeBackend()})`, () => {
  let t: TestNode;
  let base: string;
  const posted = new Map<string, number>();

  async function post(space: string, thread: string) {
    const key = `${space}/${thread}`;
    const i = (posted.get(key) ?? 0) + 1;
    posted.set(key, i);
    const res = await t.request('POST', `/v1/spaces/${space}/turns`, turn(i, thread));
    expect(res.status).toBe(202);
  }
  const context = async (space: string, thread: string) => {
    const res = await t.request('GET', `/v1/spaces/${space}/threads/${thread}/context`);
    expect(res.status).toBe(200);
    return res.body as {
      decayLambda: number;
      blocks: { age: number; level: number; turnRange: number[] }[];
    };
  };
  const ageLevels = (body: { blocks: { age: number; level: number }[] }) =>
    body.blocks.map((b) => [b.age, b.level]);

  beforeAll(async () => {
    t = await startTestNode('projection_rebuild', {
      config: {
        STRATAGATE_DEFAULT_DECAY_LAMBDA: RULE_A,
        // Readers re-check the live version every 50 ms (default 1 s); the drain below is longer.
        STRATAGATE_PROJECTION_REFRESH_MS: '50',
      },
    });
    base = t.node.config.STRATAGATE_READ_MODEL_SCHEMA;
    // "plain" never configures λ (the rule applies); "tuned" does (the rule must not touch it).
    const tuned = await t.request('PUT', '/v1/spaces/tuned/settings', {
      blockSize: 4,
      decayLambda: 0.5,
    });
    expect(tuned.status).toBe(200);
    for (let i = 0; i < 24; i++) await post('plain', 't1');
    for (let i = 0; i < 8; i++) await post('tuned', 't1');
    await t.settle('plain');
    await t.settle('tuned');
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('reads follow rule A before the rebuild', async () => {
    const plain = await context('plain', 't1');
    expect(plain.decayLambda).toBe(0.3);
    // Two ready blocks of 12: the older one is 1 block old, weight e^-0.3 = 0.74 → stays L5.
    expect(ageLevels(plain)).toEqual([
      [1, 5],
      [0, 5],
    ]);
    expect((await t.request('GET', '/v1/spaces/tuned/status')).body.decayLambda).toBe(0.5);
  });

  it('rebuilds with rule B while turns keep arriving, switches reads once caught up and drops the old schema', async () => {
    const db = t.node.database.db;
    const progress: RebuildProgress[] = [];
    let finished = false;
    const rebuild = rebuildProjection({
      db,
      log: t.node.log,
      base,
      definition: coreProjectionDefinition,
      rules: B,
      batchSize: 32,
      drainMs: 500,
      progressMs: 20,
      onProgress: (p) => progress.push(p),
    }).finally(() => {
      finished = true;
    });

    // Live traffic the whole time: new turns in both spaces, on a new thread of "plain". Paced,
    // so the log grows slower than the rebuild applies it (a tight loop can outrun a rebuild on a
    // busy machine, and then no rebuild ever catches up: that is a capacity question, not this one).
    const states: string[] = [];
    let n = 0;
    while (!finished || n < 20) {
      const row = await readProjectionVersion(db, base, 'core');
      states.push(row!.state);
      await post(n % 3 === 2 ? 'tuned' : 'plain', n % 3 === 2 ? 't1' : 't2');
      await new Promise((resolve) => setTimeout(resolve, 10));
      n += 1;
      if (n > 400) throw new Error('the rebuild did not finish');
    }
    const result = await rebuild;

    expect(result).toMatchObject({
      liveSchema: `${base}_r2`,
      generation: 2,
      resumedFrom: 0,
      droppedSchema: base,
      alreadyLive: false,
    });
    // Turns were posted while the new version was being built (and after the switch).
    expect(states).toContain('building');
    expect((await readProjectionVersion(db, base, 'core'))!.state).toBe('live');
    // Progress: position against the head, a rate, then the switch phases.
    const building = progress.filter((p) => p.phase === 'building');
    expect(building.length).toBeGreaterThan(0);
    for (const p of progress) expect(p.position).toBeLessThanOrEqual(p.head);
    expect(building.some((p) => p.recordsPerSecond > 0)).toBe(true);
    expect(progress.map((p) => p.phase).slice(-2)).toEqual(['draining', 'done']);
    expect(await schemaExists(db, base)).toBe(false);
    expect(await t.node.readModel.get()).toBe(`${base}_r2`);
  });

  it('reads now give rule B, for old and new turns, and the projector carries on in the new version', async () => {
    await post('plain', 't1');
    await t.settle('plain');
    await t.settle('tuned');
    const plain = await context('plain', 't1');
    expect(plain.decayLambda).toBe(0.9);
    // Same blocks, faster fading: e^-0.9 = 0.41 → two levels down.
    expect(ageLevels(plain)).toEqual([
      [1, 3],
      [0, 5],
    ]);
    expect((await context('plain', 't2')).decayLambda).toBe(0.9);
    expect((await t.request('GET', '/v1/spaces/tuned/status')).body.decayLambda).toBe(0.5);
    const [status] = await projectionStatus(t.node.database.db, t.node.log, base);
    expect(status).toMatchObject({
      name: 'core',
      live: { schema: `${base}_r2`, generation: 2, lag: 0, rules: { rules: B } },
      building: null,
      retiredSchema: null,
    });
  });

  it('nothing is lost or doubled: the live version equals a from-zero projection under rule B', async () => {
    await t.node.consolidator!.stop();
    await t.node.projector!.stop();
    const head = await t.node.log.headPosition();
    while ((await t.node.projector!.catchUp()) < head) await new Promise((r) => setTimeout(r, 20));
    const db = t.node.database.db;
    const fresh = async (schema: string, rules: { defaultDecayLambda: number }) => {
      const projector = createProjector({
        db,
        log: t.node.log,
        schema,
        projection: createCoreProjection(rules),
      });
      while ((await projector.catchUp()) < head) await new Promise((r) => setTimeout(r, 20));
      return dumpReadModel(db, schema);
    };
    const live = await dumpReadModel(db, `${base}_r2`);
    expect(live).toEqual(await fresh('rm_check_b', B));
    const turns = live.turns as { space_id: string; thread_id: string }[];
    for (const [key, count] of posted) {
      const [space, thread] = key.split('/');
      expect(turns.filter((r) => r.space_id === space && r.thread_id === thread)).toHaveLength(
        count,
      );
    }
    // Under rule A only the rule's own output differs: the unconfigured space's λ.
    const a = await fresh('rm_check_a', { defaultDecayLambda: 0.3 });
    expect({ ...a, spaces: [] }).toEqual({ ...live, spaces: [] });
    expect(a.spaces).not.toEqual(live.spaces);
  });
});

/**
 * Runs the real CLI and collects its output. A command still running after `timeoutMs` is killed
 * and reported as such: a command that finished its work must also exit.
 */
function cli(args: string[], env: Record<string, string> = {}, timeoutMs = 120_000) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, STRATAGATE_LOG_LEVEL: 'silent', DATABASE_URL: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      stderr += `\n[test] still running after ${timeoutMs} ms: killed`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * The CLI rebuild as an operator runs it, on the store the tests use and the log `log` names
 * (the node's and the CLI's environment both).
 */
function cliRebuild(title: string, log: () => Record<string, string>) {
  const cleanup: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c();
  });

  it(title, { timeout: 300_000 }, async () => {
    const logEnv = log();
    let store: string[];
    let overrides: Record<string, string>;
    if (process.env.DATABASE_URL) {
      const db = await openTestDatabase('rebuild_cli');
      cleanup.push(() => db.close());
      store = ['--database-url', db.url!];
      overrides = { DATABASE_URL: db.url! };
    } else {
      const dir = await mkdtemp(join(tmpdir(), 'sg-rebuild-'));
      cleanup.push(() => rm(dir, { recursive: true, force: true }));
      store = ['--data-dir', dir];
      overrides = { STRATAGATE_DATA_DIR: dir };
    }
    const config = loadConfig(
      {},
      {
        STRATAGATE_LOG_LEVEL: 'silent',
        STRATAGATE_PROJECTION_REFRESH_MS: '50',
        ...overrides,
        ...logEnv,
      },
    );
    let node = await startNode(config, { logger: false, listen: false });
    const key = node.createdKey!;
    const request = async (method: 'GET' | 'POST', url: string, body?: object) => {
      const res = await node.http!.inject({
        method,
        url,
        headers: { authorization: `Bearer ${key}` },
        ...(body ? { payload: body } : {}),
      });
      return { status: res.statusCode, body: res.json() };
    };
    for (let i = 1; i <= 14; i++) {
      expect((await request('POST', '/v1/spaces/cli/turns', turn(i))).status).toBe(202);
    }
    const projected = async () => {
      for (;;) {
        const s = await request('GET', '/v1/spaces/cli/status');
        if (s.status === 200 && s.body.projectedPosition >= s.body.logPosition) return s.body;
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    expect((await projected()).decayLambda).toBe(0.3);

    // The embedded store belongs to one process: stop the node for the CLI. On a server the
    // node keeps serving and ingesting beside the rebuild.
    const sideBySide = Boolean(process.env.DATABASE_URL);
    if (!sideBySide) await node.stop();
    const rebuild = cli(['projections', 'rebuild', 'core', ...store, '--drain-ms', '300'], {
      STRATAGATE_DEFAULT_DECAY_LAMBDA: '0.9',
      ...logEnv,
    });
    let turns = 14;
    if (sideBySide) {
      // Ingest and projection carry on in this process while the CLI rebuilds.
      let exited = false;
      void rebuild.then(() => (exited = true));
      while (!exited) {
        turns += 1;
        expect((await request('POST', '/v1/spaces/cli/turns', turn(turns))).status).toBe(202);
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    const out = await rebuild;
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toMatch(
      /core → rm_v1_r2: building position \d+ of \d+.*records\/s, lag \d+/,
    );
    expect(out.stdout).toMatch(/reads switched to rm_v1_r2 \(generation 2\).*dropped rm_v1/);

    if (!sideBySide) node = await startNode(config, { logger: false, listen: false });
    cleanup.push(() => node.stop());
    const after = await projected();
    expect(after.decayLambda).toBe(0.9);
    expect(after.turnCounter).toBe(turns);
    if (!sideBySide) await node.stop();
    const status = await cli(['projections', 'status', ...store], logEnv);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(
      new RegExp(
        // The table log has one position; the Kafka log a consumer group per version.
        `^core \\(rm_v1_r2, generation 2\\)(: position \\d+ of \\d+,| on topic \\S+, group \\S+:) ` +
          `lag \\d+; ` +
          `code v${coreProjectionDefinition.codeVersion} \\{"defaultDecayLambda":0.9\\}`,
      ),
    );
  });
}

describe(`stratagate projections rebuild (CLI, ${describeBackend()})`, () => {
  cliRebuild(
    'rebuilds with the configured rules, reports progress on stderr and status shows the new version',
    () => ({}),
  );
});

describeWithKafka(
  `stratagate projections rebuild on the Kafka log (CLI, ${describeBackend()})`,
  () => {
    cliRebuild('rebuilds from the topic, switches reads and exits', () => ({
      STRATAGATE_LOG_BACKEND: 'kafka',
      KAFKA_BROKERS: kafkaBrokers.join(','),
      STRATAGATE_KAFKA_TOPIC: freshTopic('rebuild-cli'),
      STRATAGATE_KAFKA_SESSION_TIMEOUT_MS: '6000',
    }));
  },
);
