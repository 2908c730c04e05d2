/** Helpers for tests only: `@stratagate/runtime/testing` (a whole node on a fresh database). */
import { loadConfig } from './config.ts';
import { startNode, type NodeOptions, type StrataGateNode } from './node.ts';
import { openDatabase } from '@stratagate/store';
import { openTestDatabase } from '@stratagate/store/testing';
import type { Logger } from 'pino';
import {
  createOpenAiCompatibleProvider,
  type ModelPort,
  type OpenAiCompatibleConfig,
} from '@stratagate/model';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '@stratagate/model/testing';
import { StrataGate } from '@stratagate/client';
import { injectFetch } from '@stratagate/http';

export interface TestNode {
  node: StrataGateNode;
  key: string;
  /**
   * The TypeScript client, with the node's key, answered in process (`inject`): typed calls by
   * operationId with the client's errors. It sends no call twice, so a test sees every answer.
   */
  client: StrataGate;
  request(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    body?: unknown,
    key?: string,
  ): Promise<TestResponse>;
  /** Waits until projection has applied everything in the log and no summary job is pending. */
  /** Bounded by `timeoutMs` (default 60 s). */
  settle(spaceId: string, key?: string, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export interface TestResponse {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  headers: Record<string, unknown>;
}

/** All four roles in one process on a fresh database (PGlite, or a new one on DATABASE_URL). */
export async function startTestNode(
  label: string,
  options: {
    model?: ModelPort;
    roles?: string;
    now?: () => Date;
    /** Further settings by env name (e.g. STRATAGATE_REMEMBER_ENABLED). */
    config?: Record<string, string>;
    /** Further `startNode` options. */
    node?: Omit<NodeOptions, 'database' | 'logger' | 'listen' | 'model' | 'now'>;
    /** Where the node logs (default: nowhere). */
    logger?: Logger;
    /** Listen on 127.0.0.1 at a free port (`node.url`) as well as answering `inject`. */
    listen?: boolean;
    /** An in-memory embedded store even when DATABASE_URL names a server (cross-store tests). */
    embedded?: boolean;
    /** The embedded store in this data directory, opened as `serve` opens it (CLI tests). */
    dataDir?: string;
  } = {},
): Promise<TestNode> {
  const database = options.dataDir
    ? undefined
    : options.embedded
      ? await openDatabase({ kind: 'pglite' })
      : await openTestDatabase(label);
  const config = loadConfig(
    {},
    {
      STRATAGATE_ROLES: options.roles ?? 'all',
      STRATAGATE_LOG_LEVEL: 'silent',
      ...(options.listen ? { STRATAGATE_HOST: '127.0.0.1', STRATAGATE_PORT: '0' } : {}),
      ...(options.dataDir ? { STRATAGATE_DATA_DIR: options.dataDir } : {}),
      ...options.config,
    },
  );
  const node = await startNode(config, {
    ...(database ? { database } : {}),
    logger: options.logger ?? false,
    listen: options.listen ?? false,
    ...(options.model ? { model: options.model } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...options.node,
  });
  const key = node.createdKey!;
  const request: TestNode['request'] = async (method, url, body, asKey = key) => {
    const res = await node.http!.inject({
      method,
      url,
      headers: { authorization: `Bearer ${asKey}` },
      ...(body !== undefined ? { payload: body as object } : {}),
    });
    return { status: res.statusCode, body: res.body ? res.json() : null, headers: res.headers };
  };
  let client: StrataGate | undefined;
  return {
    node,
    key,
    // Made on first use: a node on an existing store has no key of its own to make it with.
    get client() {
      client ??= new StrataGate({
        baseUrl: 'http://stratagate.test',
        apiKey: key,
        fetch: injectFetch(node.http!),
        retries: 0,
      });
      return client;
    },
    request,
    async settle(spaceId, asKey = key, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const s = await request('GET', `/v1/spaces/${spaceId}/status`, undefined, asKey);
        const done =
          s.status === 200 &&
          s.body.projectedPosition >= s.body.logPosition &&
          s.body.summaryJobs.pending === 0 &&
          s.body.extractionJobs.pending === 0 &&
          s.body.graphJobs.pending === 0 &&
          s.body.blocks.pending === s.body.summaryJobs.failed &&
          // The topic directory comes after the graph, where this node runs the jobs.
          (!node.consolidator || s.body.topicJobs.status !== 'due');
        if (done) return;
        if (Date.now() > deadline)
          throw new Error(`space ${spaceId} did not settle: ${JSON.stringify(s.body)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async stop() {
      await node.stop();
    },
  };
}

export function turn(i: number, threadId = 't1', extra: Record<string, unknown> = {}) {
  return {
    turnId: `${threadId}-turn-${i}`,
    threadId,
    occurredAt: new Date(Date.UTC(2023, 4, 8, 10, i)).toISOString(),
    messages: [
      {
        role: 'user',
        name: 'Caroline',
        content: `Turn ${i}: I went to the pottery class and we planned the ${i}th workshop.`,
      },
      { role: 'assistant', content: `Noted the workshop number ${i}. Anything else?` },
    ],
    ...extra,
  };
}

/**
 * A test node whose model is the OpenAI-compatible client of a fake server the test scripts
 * (`fake.respondWith`), with one-turn blocks in `spaceId`. `stop` stops both.
 */
export async function startFakeModelNode(
  label: string,
  spaceId: string,
  client: Partial<OpenAiCompatibleConfig> = {},
): Promise<{ t: TestNode; fake: FakeOpenAiServer }> {
  const fake = await startFakeOpenAiServer();
  const model = createOpenAiCompatibleProvider({
    baseUrl: fake.baseUrl,
    model: 'fake-model',
    sleep: async () => {},
    ...client,
  });
  const t = await startTestNode(label, { model });
  await t.request('PUT', `/v1/spaces/${spaceId}/settings`, { blockSize: 1 });
  const stop = t.stop;
  t.stop = async () => {
    await stop();
    await fake.close();
  };
  return { t, fake };
}
