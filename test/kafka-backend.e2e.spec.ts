import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBackend } from '@stratagate/store';
import {
  describeWithKafka,
  freshTopic,
  kafkaBrokers,
} from '../libs/log/src/kafka/kafka.test-support.ts';
import { startTestNode, turn, type TestNode } from './harness.ts';

// All four roles in one process with the Kafka log: ingest appends to the topic (indexed in the
// database), the projector is a consumer-group member, the consolidator's records go the same way.
describeWithKafka(`roles on the Kafka log (${describeBackend()})`, () => {
  let t: TestNode;
  const spaces = ['kafka:alpha', 'kafka:beta', 'kafka:gamma'];

  beforeAll(async () => {
    t = await startTestNode('kafka-backend', {
      config: {
        STRATAGATE_LOG_BACKEND: 'kafka',
        KAFKA_BROKERS: kafkaBrokers.join(','),
        STRATAGATE_KAFKA_TOPIC: freshTopic('node'),
        STRATAGATE_KAFKA_SESSION_TIMEOUT_MS: '6000',
      },
    });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('projects and consolidates every space; status compares per-space positions', async () => {
    expect(t.node.projector).toBeNull();
    expect(t.node.kafkaProjector?.groupId()).toMatch(/^stratagate\.projector\.core\./);
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
      await t.settle(space);
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
  });

  it('the open batches list waits for the search’s own evidence batch in that space', async () => {
    const res = await t.request('POST', `/v1/spaces/${spaces[1]}/threads/t1/search/raw`, {
      query: 'pottery workshop',
    });
    expect(res.status).toBe(200);
    expect(res.body.batchId).toBe('batch_1');
    expect(res.body.hits.length).toBeGreaterThan(0);
    const batches = await t.request('GET', `/v1/spaces/${spaces[1]}/threads/t1/batches`);
    expect(batches.status).toBe(200);
    expect(JSON.stringify(batches.body)).toContain('batch_1');
  });
});
