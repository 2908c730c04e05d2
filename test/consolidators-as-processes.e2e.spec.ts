import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fakeOpenAiReply,
  startFakeOpenAiServer,
  type FakeOpenAiServer,
} from '@stratagate/model/testing';
import { DEFAULT_READ_MODEL_SCHEMA, dumpSpaceReadModel } from '@stratagate/store';
import { openTestDatabase } from '@stratagate/store/testing';
import { turn } from './harness.ts';
import { eventually, freePort, startRoleProcess, type RoleProcess } from './support/processes.ts';

/**
 * Consolidators as separate `stratagate serve --role consolidator` processes on one Postgres
 * store, sharing spaces by leases (ADR 0042), with a slow model (an OpenAI-compatible fake that
 * answers after 300 ms). First one consolidator alone consolidates two spaces; then a second
 * joins, the same conversation goes to eight more spaces, and one of the two is SIGKILLed while
 * it holds a space mid-job. Its spaces wait for their leases to expire and the survivor finishes
 * them: every block is summarised exactly once, and each space's read model is the one the
 * single consolidator made.
 */
const TITLE = 'consolidators as separate processes sharing spaces by leases';
const missing = process.env.DATABASE_URL ? null : 'DATABASE_URL (a Postgres server)';
if (missing) console.warn(`SKIPPED: ${TITLE}: needs ${missing}`);
const suite = missing ? describe.skip : describe;

const TURNS = 12;
const BLOCK = 2;
const BLOCKS = TURNS / BLOCK;
const SOLO = ['solo-1', 'solo-2'];
const DUO = Array.from({ length: 8 }, (_, i) => `duo-${i + 1}`);
const SLOW_MS = 300;
const LEASE_MS = 3_000;

/** A summary made from the turn numbers the prompt shows: the same block text, the same summary. */
function summaryOf(body: unknown) {
  const prompt = JSON.stringify((body as { messages?: unknown }).messages ?? '');
  const turns = [...new Set([...prompt.matchAll(/Turn (\d+):/g)].map((m) => m[1]))];
  return {
    title: `Turns ${turns.join(', ')}`,
    tags: ['pottery'],
    summary: `Caroline planned workshops ${turns.join(', ')}.`,
    keyPoints: turns.map((n) => `Workshop ${n} planned.`),
    shouldExtract: false,
  };
}

suite(`${TITLE}${missing ? ` [skipped: needs ${missing}]` : ''}`, () => {
  const key = `sg_test_${randomBytes(24).toString('hex')}`;
  const processes: RoleProcess[] = [];
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  let client: pg.Client;
  let fake: FakeOpenAiServer;
  let url = '';
  let env: Record<string, string> = {};

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  const consolidator = (name: string) => {
    const p = startRoleProcess(name, ['serve', '--role', 'consolidator'], env);
    processes.push(p);
    return p;
  };
  const converse = async (spaces: string[]) => {
    for (const space of spaces) {
      const res = await call('PUT', `/v1/spaces/${space}/settings`, { blockSize: BLOCK });
      expect(res.status).toBe(200);
    }
    for (let i = 1; i <= TURNS; i++) {
      for (const space of spaces) {
        const res = await call('POST', `/v1/spaces/${space}/turns`, turn(i));
        expect(res.status).toBe(202);
      }
    }
  };
  const consolidated = (space: string) =>
    eventually(
      `${space} consolidated`,
      async () => {
        const s = await call('GET', `/v1/spaces/${space}/status`);
        const done =
          s.status === 200 &&
          s.body.projectedPosition === s.body.logPosition &&
          s.body.blocks.total === BLOCKS &&
          s.body.blocks.ready === BLOCKS;
        return done ? s.body : undefined;
      },
      300_000,
    );
  /** The log's records of a space, in order (the log schema is the one with `records`). */
  const recordsOf = async (space: string) => {
    const { rows: schemas } = await client.query<{ table_schema: string }>(
      `select table_schema from information_schema.tables where table_name = 'records'`,
    );
    expect(schemas).toHaveLength(1);
    const { rows } = await client.query<{ type: string; idempotency_key: string }>(
      `select type, idempotency_key from ${schemas[0]!.table_schema}.records
       where tenant_id = 'local' and space_id = $1 order by space_version`,
      [space],
    );
    return rows;
  };
  /**
   * The space's read model, comparable across spaces and runs: block and message ids (random)
   * named by their sequence and turn, rows in a fixed order. Log positions are left out: turns
   * and summaries interleave in the log as the timing goes; that every block was summarised once
   * is checked on the log.
   */
  const dumpOf = async (space: string) => {
    const dump = await dumpSpaceReadModel(
      database.db,
      DEFAULT_READ_MODEL_SCHEMA,
      { tenantId: 'local', spaceId: space },
      () => 0,
    );
    let text = JSON.stringify(dump);
    for (const b of dump.blocks as { block_id: string; sequence: number }[]) {
      text = text.replaceAll(b.block_id, `block#${b.sequence}`);
    }
    for (const m of dump.messages as { message_id: string; turn_id: string; seq: number }[]) {
      text = text.replaceAll(m.message_id, `message#${m.turn_id}.${m.seq}`);
    }
    const normal = JSON.parse(text) as Record<string, unknown[]>;
    for (const rows of Object.values(normal)) {
      rows.sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
    }
    return normal;
  };

  beforeAll(async () => {
    database = await openTestDatabase('consolidators');
    fake = await startFakeOpenAiServer();
    fake.respondWith((body) =>
      fakeOpenAiReply.delayed(SLOW_MS, fakeOpenAiReply.json(summaryOf(body))),
    );
    env = {
      DATABASE_URL: database.url!,
      STRATAGATE_API_KEY: key,
      STRATAGATE_TENANT: 'local',
      STRATAGATE_LOG_LEVEL: 'info',
      STRATAGATE_MODEL_BASE_URL: fake.baseUrl,
      STRATAGATE_MODEL_NAME: 'fake-model',
      STRATAGATE_CONSOLIDATOR_CONCURRENCY: '2',
      STRATAGATE_CONSOLIDATOR_LEASE_MS: String(LEASE_MS),
      // The turns are posted in a burst; the jobs are not to wait for its end (ADR 0026).
      STRATAGATE_CONSOLIDATOR_YIELD_RATE: '0',
    };
    const migrate = startRoleProcess('migrate', ['migrate'], env);
    expect(await migrate.exited).toBe(0);
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    processes.push(
      startRoleProcess(
        'ingest-projector-query',
        ['serve', '--role', 'ingest,projector,query', '--port', String(port)],
        env,
      ),
    );
    await eventually('readyz', async () => (await fetch(`${url}/readyz`)).ok || undefined, 180_000);
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
  }, 300_000);

  afterAll(async () => {
    for (const p of processes) p.kill('SIGTERM');
    await Promise.all(processes.map((p) => p.exited));
    await client?.end();
    await fake?.close();
    await database?.close();
  });

  it(
    'summarises every block once across a consolidator SIGKILLed mid-job; read models as with one',
    { timeout: 900_000 },
    async () => {
      const first = consolidator('consolidator-1');
      await converse(SOLO);
      for (const space of SOLO) await consolidated(space);
      const reference = await dumpOf(SOLO[0]!);
      expect(await dumpOf(SOLO[1]!)).toEqual(reference);

      const second = consolidator('consolidator-2');
      const requestsBefore = fake.requestCount;
      await converse(DUO);
      // The victim is a consolidator holding a space while its model call runs.
      const held = async (p: RoleProcess) => {
        const { rows } = await client.query<{ unit: string; token: string }>(
          `select unit, token from control.job_leases
           where holder like $1 and expires_at > clock_timestamp() and unit like 'space:%'`,
          [`%:${p.child.pid}:%`],
        );
        return rows.length > 0 && fake.requestCount > requestsBefore ? rows : undefined;
      };
      const [victim, units] = await eventually(
        'a consolidator to hold a space mid-job',
        async () => {
          const a = await held(first);
          if (a) return [first, a] as const;
          const b = await held(second);
          return b ? ([second, b] as const) : undefined;
        },
        120_000,
      );
      victim.kill('SIGKILL');
      expect(await victim.exited).toBeNull();

      for (const space of DUO) await consolidated(space);
      // The victim's spaces were claimed again once its leases had expired: their tokens moved.
      for (const unit of units) {
        const { rows } = await client.query<{ token: string }>(
          `select token from control.job_leases where unit = $1`,
          [unit.unit],
        );
        expect(Number(rows[0]!.token)).toBeGreaterThan(Number(unit.token));
      }
      // No job ran twice but the victim's: at most its `concurrency` calls in flight were lost
      // and made again (without leases both processes would call the model for most blocks).
      expect(fake.requestCount - requestsBefore).toBeGreaterThanOrEqual(DUO.length * BLOCKS);
      expect(fake.requestCount - requestsBefore).toBeLessThanOrEqual(DUO.length * BLOCKS + 2);
      for (const space of DUO) {
        const records = await recordsOf(space);
        const summarised = records.filter((r) => r.type === 'BlockSummarized');
        // Exactly once: one summary per block, and no failures from the killed process.
        expect(summarised).toHaveLength(BLOCKS);
        // The data may be sealed (ADR 0046); the job's key names the block.
        const blocks = summarised.map((r) => r.idempotency_key.split(':')[1]);
        expect(new Set(blocks).size).toBe(BLOCKS);
        expect(records.filter((r) => r.type === 'DerivationFailed')).toEqual([]);
        expect(await dumpOf(space), space).toEqual(reference);
      }
    },
  );
});
