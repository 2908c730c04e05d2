import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  coreProjectionDefinition,
  listProjectionVersions,
  rebuildProjection,
  type RebuildProgress,
} from '@stratagate/projector';
import { describeBackend } from '@stratagate/store/testing';
import { installTestTelemetry, type TestTelemetry } from '@stratagate/telemetry/testing';
import {
  describeWithKafka,
  freshTopic,
  kafkaBrokers,
} from '../libs/log/src/kafka/kafka.test-support.ts';
import { startTestNode, turn, type TestNode } from './harness.ts';
import { eventually } from './support/processes.ts';

// All four roles in one process with the Kafka log: ingest appends to the topic (indexed in the
// database), the projector is a consumer-group member, the consolidator's records go the same way.
describeWithKafka(`roles on the Kafka log (${describeBackend()})`, () => {
  let t: TestNode;
  let telemetry: TestTelemetry;
  const spaces = ['kafka:alpha', 'kafka:beta', 'kafka:gamma'];

  beforeAll(async () => {
    // Before the node: the first telemetry set-up in a process wins.
    telemetry = installTestTelemetry();
    t = await startTestNode('kafka-backend', {
      config: {
        STRATAGATE_LOG_BACKEND: 'kafka',
        KAFKA_BROKERS: kafkaBrokers.join(','),
        STRATAGATE_KAFKA_TOPIC: freshTopic('node'),
        STRATAGATE_KAFKA_SESSION_TIMEOUT_MS: '6000',
        STRATAGATE_PROJECTION_REFRESH_MS: '100',
      },
    });
  });
  afterAll(async () => {
    await t?.stop();
    await telemetry?.shutdown();
  });

  it(
    'projects and consolidates every space; status compares per-space positions',
    { timeout: 600_000 },
    async () => {
      expect(t.node.projector).toBeNull();
      expect(t.node.kafkaProjector?.groupId()).toMatch(
        /^stratagate\.projector\.sg-test-node-[^.]+\.core\./,
      );
      for (const space of spaces) {
        expect(
          (await t.request('PUT', `/v1/spaces/${space}/settings`, { blockSize: 4 })).status,
        ).toBe(200);
      }
      // Interleaved across spaces, so partitions and spaces mix within batches.
      for (let i = 1; i <= 10; i++) {
        for (const space of spaces) {
          const res = await t.request('POST', `/v1/spaces/${space}/turns`, turn(i));
          expect(res.status).toBe(202);
          expect(res.body.threadTurn).toBe(i);
        }
      }
      for (const space of spaces) {
        // The first pass includes the consumer group's first join on a busy shared mock cluster.
        await t.settle(space, undefined, 180_000);
        const status = (await t.request('GET', `/v1/spaces/${space}/status`)).body;
        // Per space on Kafka: the position of the space's last record, and of the last applied.
        expect(status.logPosition).toBeGreaterThan(0);
        expect(status.projectedPosition).toBe(status.logPosition);
        expect(status.turnCounter).toBe(10);
        expect(status.blocks).toEqual({ total: 2, ready: 2, pending: 0 });
        const context = (await t.request('GET', `/v1/spaces/${space}/threads/t1/context`)).body;
        expect(context.blocks.map((b: { turnRange: number[] }) => b.turnRange)).toEqual([
          [1, 4],
          [5, 8],
        ]);
        expect(context.openTail.turns).toBe(2);
        expect(context.projectedPosition).toBe(status.logPosition);
      }
    },
  );

  it('traces cross the topic: a summary job continues the trace of the request that sealed its block', async () => {
    const spans = telemetry.spans();
    const posts = spans.filter((s) => s.name === 'POST /v1/spaces/:spaceId/turns');
    const traces = new Set(posts.map((s) => s.spanContext().traceId));
    const jobs = spans.filter((s) => s.name === 'consolidate summary');
    expect(jobs.length).toBeGreaterThanOrEqual(spaces.length * 2);
    for (const job of jobs) {
      // Found through the Kafka index by the block's applied position (`readAt`).
      expect(job.parentSpanContext?.spanId).toBeDefined();
      expect(traces.has(job.spanContext().traceId)).toBe(true);
    }
    // The projector batch that applied the seal is in the request's trace too.
    const batches = spans.filter(
      (s) => s.name === 'project core' && traces.has(s.spanContext().traceId),
    );
    expect(batches.length).toBeGreaterThan(0);
  });

  it('the open batches list waits for the search’s own evidence batch in that space', async () => {
    const res = await t.request('POST', `/v1/spaces/${spaces[1]}/threads/t1/search/raw`, {
      query: 'pottery workshop',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.batchId, JSON.stringify(res.body)).toBe('batch_1');
    expect(res.body.hits.length, JSON.stringify(res.body)).toBeGreaterThan(0);
    const batches = await t.request('GET', `/v1/spaces/${spaces[1]}/threads/t1/batches`);
    expect(batches.status).toBe(200);
    expect(JSON.stringify(batches.body)).toContain('batch_1');
  });

  it(
    'a rebuild on Kafka builds the new rules in its own group beside the live one and switches',
    { timeout: 600_000 },
    async () => {
      const db = t.node.database.db;
      const base = t.node.config.STRATAGATE_READ_MODEL_SCHEMA;
      const before = await t.node.readModel.get();
      const liveGroup = t.node.kafkaProjector!.groupId();
      const progress: RebuildProgress[] = [];
      const rebuild = rebuildProjection({
        db,
        log: t.node.log,
        base,
        definition: coreProjectionDefinition,
        rules: { defaultDecayLambda: 0.7 },
        kafka: t.node.kafka!,
        drainMs: 1500,
        progressMs: 50,
        onProgress: (p) => progress.push(p),
      });
      // Traffic while the new version is being built.
      for (let i = 11; i <= 14; i++) {
        expect((await t.request('POST', `/v1/spaces/${spaces[0]}/turns`, turn(i))).status).toBe(
          202,
        );
      }
      const result = await rebuild;
      expect(result.liveSchema).not.toBe(before);
      expect(result.resumedFrom).toBe(0);
      expect(progress.at(-1)?.phase).toBe('done');
      expect(progress.at(-1)?.applied).toBeGreaterThan(0);
      const [version] = await listProjectionVersions(db, base);
      expect(version?.liveSchema).toBe(result.liveSchema);
      expect(version?.liveRules.rules).toEqual({ defaultDecayLambda: 0.7 });

      // The live projector leaves the old group and continues in the new schema's group.
      await eventually(
        'the live projector to follow the switch',
        () => t.node.kafkaProjector!.groupId()?.endsWith(`.${result.liveSchema}`),
        180_000,
      );
      expect(t.node.kafkaProjector!.groupId()).not.toBe(liveGroup);
      for (let i = 15; i <= 16; i++) {
        expect((await t.request('POST', `/v1/spaces/${spaces[0]}/turns`, turn(i))).status).toBe(
          202,
        );
      }
      await t.settle(spaces[0]!, undefined, 180_000);
      expect(await t.node.readModel.get()).toBe(result.liveSchema);
      const status = (await t.request('GET', `/v1/spaces/${spaces[0]}/status`)).body;
      expect(status.turnCounter).toBe(16);
      expect(status.blocks).toEqual({ total: 4, ready: 4, pending: 0 });
      const context = (await t.request('GET', `/v1/spaces/${spaces[0]}/threads/t1/context`)).body;
      expect(context.blocks.map((b: { turnRange: number[] }) => b.turnRange)).toEqual([
        [1, 4],
        [5, 8],
        [9, 12],
        [13, 16],
      ]);
      // The other spaces were rebuilt whole from offset 0.
      const other = (await t.request('GET', `/v1/spaces/${spaces[2]}/status`)).body;
      expect(other.turnCounter).toBe(10);
      expect(other.blocks).toEqual({ total: 2, ready: 2, pending: 0 });
    },
  );
});
