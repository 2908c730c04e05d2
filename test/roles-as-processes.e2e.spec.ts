import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '@stratagate/store/testing';
import { freshTopic, kafkaBrokers, testKafka } from '../libs/log/src/kafka/kafka.test-support.ts';
import { turn } from './harness.ts';
import { eventually, freePort, startRoleProcess, type RoleProcess } from './support/processes.ts';

/**
 * One role per process, as in a scaled-out deployment: ingest, two projectors (one consumer
 * group), a consolidator and query as separate `stratagate serve --role …` processes on a
 * Postgres server and the Kafka (mock) cluster. A projector is SIGKILLed mid-run; the survivor
 * takes its partitions over and the read models end complete, with nothing applied twice.
 */
const missing = [
  process.env.DATABASE_URL ? null : 'DATABASE_URL (a Postgres server: roles in separate processes)',
  kafkaBrokers.length > 0 ? null : 'KAFKA_BROKERS (scripts/kafka-mock.sh starts a mock cluster)',
].filter((m): m is string => m !== null);
const TITLE = 'roles as separate processes on Postgres and Kafka';
if (missing.length > 0) console.warn(`SKIPPED: ${TITLE}: needs ${missing.join(' and ')}`);
const suite = missing.length > 0 ? describe.skip : describe;

const SPACES = ['proc:alpha', 'proc:beta', 'proc:gamma', 'proc:delta', 'proc:epsilon'];
const TURNS = 24;
const BLOCK = 4;

suite(`${TITLE}${missing.length > 0 ? ` [skipped: needs ${missing.join(', ')}]` : ''}`, () => {
  const key = `sg_test_${randomBytes(24).toString('hex')}`;
  const processes: RoleProcess[] = [];
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  let client: pg.Client;
  let ingestUrl = '';
  let queryUrl = '';
  let env: Record<string, string> = {};

  const call = async (base: string, method: string, url: string, body?: unknown) => {
    const res = await fetch(`${base}${url}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  const role = (name: string, roles: string, port?: number) => {
    const p = startRoleProcess(
      name,
      ['serve', '--role', roles, ...(port ? ['--port', String(port)] : [])],
      env,
    );
    processes.push(p);
    return p;
  };
  const ready = (url: string) =>
    eventually(
      `${url}/readyz`,
      async () => (await fetch(`${url}/readyz`)).ok || undefined,
      180_000,
    );
  const joinsOf = (p: RoleProcess) =>
    p.lines
      .filter((l) => l.msg === 'projector partitions assigned')
      .map((l) => l.partitions as number[]);
  const assignedTo = (p: RoleProcess): number[] | undefined => joinsOf(p).at(-1);

  beforeAll(async () => {
    database = await openTestDatabase('processes');
    env = {
      DATABASE_URL: database.url!,
      STRATAGATE_LOG_BACKEND: 'kafka',
      KAFKA_BROKERS: kafkaBrokers.join(','),
      STRATAGATE_KAFKA_TOPIC: freshTopic('processes'),
      STRATAGATE_KAFKA_SESSION_TIMEOUT_MS: '6000',
      STRATAGATE_API_KEY: key,
      STRATAGATE_LOG_LEVEL: 'info',
    };
    // The schemas first, as a deployment's migrate job does; then every role at once.
    const migrate = startRoleProcess('migrate', ['migrate'], env);
    expect(await migrate.exited).toBe(0);
    const [ingestPort, queryPort] = [await freePort(), await freePort()];
    ingestUrl = `http://127.0.0.1:${ingestPort}`;
    queryUrl = `http://127.0.0.1:${queryPort}`;
    role('ingest', 'ingest', ingestPort);
    role('query', 'query', queryPort);
    role('projector-1', 'projector');
    role('projector-2', 'projector');
    role('consolidator', 'consolidator');
    await ready(ingestUrl);
    await ready(queryUrl);
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
  }, 300_000);

  afterAll(async () => {
    for (const p of processes) p.kill('SIGTERM');
    await Promise.all(processes.map((p) => p.exited));
    await client?.end();
    await database?.close();
  });

  it(
    'projects every space completely and once, across a projector SIGKILLed mid-run',
    { timeout: 900_000 },
    async () => {
      for (const space of SPACES) {
        const res = await call(ingestUrl, 'PUT', `/v1/spaces/${space}/settings`, {
          blockSize: BLOCK,
        });
        expect(res.status).toBe(200);
      }
      const [pa, pb] = processes.filter((p) => p.name.startsWith('projector-')) as [
        RoleProcess,
        RoleProcess,
      ];
      // Both members hold partitions before one of them dies.
      await eventually(
        'both projectors to hold partitions',
        () => {
          const a = assignedTo(pa);
          const b = assignedTo(pb);
          return a && b && a.length > 0 && b.length > 0 ? true : undefined;
        },
        180_000,
      );

      const post = async (i: number) => {
        await Promise.all(
          SPACES.map(async (space) => {
            const res = await call(ingestUrl, 'POST', `/v1/spaces/${space}/turns`, turn(i));
            expect(res.status).toBe(202);
            expect(res.body.threadTurn).toBe(i);
          }),
        );
      };
      for (let i = 1; i <= TURNS / 2; i++) await post(i);
      // The victim is a projector mid-stream: one that has applied something of its partitions.
      // (Which member gets which partitions is the group's choice, and the spaces' records may all
      // land on the other member's partitions.)
      const hasApplied = async (p: RoleProcess) => {
        const { rows } = await client.query<{ n: string }>(
          `select coalesce(sum(next_offset), 0) as n from kafka_consumer.partition_offsets
         where partition = any($1::int[])`,
          [assignedTo(p)],
        );
        return Number(rows[0]!.n) > 0;
      };
      const victim = await eventually(
        'a projector to apply a batch',
        async () => ((await hasApplied(pa)) ? pa : (await hasApplied(pb)) ? pb : undefined),
        180_000,
      );
      const survivor = victim === pa ? pb : pa;
      const victimPartitions = assignedTo(victim)!;
      const survivorJoinsBefore = joinsOf(survivor).length;
      victim.kill('SIGKILL');
      expect(await victim.exited).toBeNull();
      for (let i = TURNS / 2 + 1; i <= TURNS; i++) await post(i);

      // The survivor rejoins and gets every partition once the dead member's session expires.
      // Generous bounds: CI runs this beside other suites on 2 cores and a shared mock cluster.
      const admin = testKafka('roles-as-processes').admin();
      await admin.connect();
      const partitionCount = (await admin.fetchTopicOffsets(env.STRATAGATE_KAFKA_TOPIC!)).length;
      await admin.disconnect();
      await eventually(
        'the surviving projector to take over all partitions',
        () => {
          const joins = joinsOf(survivor);
          return joins.length > survivorJoinsBefore && joins.at(-1)!.length >= partitionCount
            ? true
            : undefined;
        },
        180_000,
      );
      expect(assignedTo(survivor)).toEqual(expect.arrayContaining(victimPartitions));

      for (const space of SPACES) {
        const status = await eventually(
          `${space} projected and consolidated`,
          async () => {
            const s = await call(queryUrl, 'GET', `/v1/spaces/${space}/status`);
            const done =
              s.status === 200 &&
              s.body.projectedPosition === s.body.logPosition &&
              s.body.blocks.total === TURNS / BLOCK &&
              s.body.blocks.ready === TURNS / BLOCK &&
              // Extraction, graph and topic jobs append after the summaries: wait for the last record.
              s.body.extractionJobs.pending === 0 &&
              s.body.graphJobs.pending === 0 &&
              s.body.topicJobs.status !== 'due';
            return done ? s.body : undefined;
          },
          180_000,
        );
        // A TurnRecorded applied twice would count twice; a lost one would leave a gap.
        expect(status.turnCounter).toBe(TURNS);
        expect(status.summaryJobs).toMatchObject({
          pending: 0,
          failed: 0,
          succeeded: TURNS / BLOCK,
        });
        const context = await call(queryUrl, 'GET', `/v1/spaces/${space}/threads/t1/context`);
        expect(context.body.blocks.map((b: { turnRange: number[] }) => b.turnRange)).toEqual(
          Array.from({ length: TURNS / BLOCK }, (_, k) => [k * BLOCK + 1, (k + 1) * BLOCK]),
        );
      }

      // The read model, row by row: every turn's messages exactly once, thread turns 1..TURNS.
      const schema = (
        await client.query<{ live_schema: string }>(
          `select live_schema from control.projection_versions where name = 'core'`,
        )
      ).rows[0]!.live_schema;
      const { rows } = await client.query<{
        space_id: string;
        n: string;
        turns: string;
        max: number;
      }>(
        `select space_id, count(*)::int as n, count(distinct thread_turn)::int as turns,
         max(thread_turn) as max
       from ${schema}.messages group by space_id order by space_id`,
      );
      expect(rows).toEqual(
        [...SPACES].sort().map((space) => ({
          space_id: space,
          n: TURNS * 2,
          turns: TURNS,
          max: TURNS,
        })),
      );
      // Each space's applied version equals its log version: nothing skipped, nothing beyond.
      const versions = await client.query<{ space_id: string; applied: string; logged: string }>(
        `select v.space_id, v.version as applied, max(k.space_version) as logged
       from kafka_consumer.space_versions v
       join kafka_log.records k on k.tenant_id = v.tenant_id and k.space_id = v.space_id
       group by v.space_id, v.version`,
      );
      expect(versions.rows).toHaveLength(SPACES.length);
      for (const v of versions.rows) expect(v.applied).toBe(v.logged);

      // The operator's view: lag per partition of the live group, all caught up.
      const cli = startRoleProcess('status', ['projections', 'status'], env);
      expect(await cli.exited).toBe(0);
      const out = cli.lines.map((l) => String(l.msg));
      const group = `stratagate.projector.${env.STRATAGATE_KAFKA_TOPIC!}.core.${schema}`;
      expect(out[0]).toContain(`core (${schema}, generation 1) on topic `);
      expect(out[0]).toContain(`group ${group}: lag 0;`);
      const partitions = out.filter((l) => /^ {2}partition \d+:/.test(l));
      expect(partitions.length).toBeGreaterThanOrEqual(2);
      for (const line of partitions) {
        const [, at, end, lag] = /offset (\d+) of (\d+), lag (\d+)$/.exec(line)!;
        expect(at).toBe(end);
        expect(lag).toBe('0');
      }
    },
  );
});
