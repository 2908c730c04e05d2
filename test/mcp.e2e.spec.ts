import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StrataGate } from '@stratagate/client';
import { recallUri } from '@stratagate/mcp';
import { describeBackend } from '@stratagate/store/testing';
import { startTestNode, type TestNode } from './harness.ts';

/*
 * The MCP server as an agent host meets it, through the MCP SDK's own client: over Streamable
 * HTTP at /mcp on the node, and over stdio from `stratagate mcp`. Both call the API with the
 * host's key, so the API's answers, refusals and tenancy come through unchanged.
 */

const SPACE = 'mcp-space';
const AGENT_TOOLS = [
  'adopt_evidence',
  'assess_evidence',
  'expand_block',
  'expand_event',
  'expand_graph_node',
  'expand_topic',
  'list_blocks',
  'list_topics',
  'propose_profile_change',
  'remember',
  'search_events',
  'search_graph',
  'search_raw',
];

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function connectHttp(t: TestNode, key: string, query = `?space=${SPACE}&thread=agent`) {
  const client = new Client({ name: 'mcp-e2e', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${t.node.url}/mcp${query}`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

/** A tool's answer as JSON, and whether it was an error. */
async function use(client: Client, name: string, args: Json = {}, timeoutMs?: number) {
  const res = (await client.callTool(
    { name, arguments: args },
    undefined,
    timeoutMs ? { timeout: timeoutMs } : {},
  )) as CallToolResult;
  const first = res.content[0];
  const text = first && first.type === 'text' ? first.text : '';
  return { isError: res.isError === true, body: JSON.parse(text) as Json };
}

describe(`MCP server over Streamable HTTP and stdio (${describeBackend()})`, () => {
  let t: TestNode;
  let sg: StrataGate;
  let mcp: Client;

  beforeAll(async () => {
    t = await startTestNode('mcp', { listen: true });
    sg = new StrataGate({ baseUrl: t.node.url!, apiKey: t.key });
    await sg.call('configureSpace', { spaceId: SPACE, body: { blockSize: 1 } });
    await sg.call('recordTurn', {
      spaceId: SPACE,
      body: {
        threadId: 'history',
        occurredAt: '2023-05-06T09:30:00Z',
        messages: [
          {
            role: 'user',
            name: 'Caroline',
            content: 'We switched Atlas to pnpm because installs are faster.',
          },
          { role: 'assistant', content: 'Understood: Atlas now uses pnpm.' },
        ],
      },
    });
    await sg.waitUntilSettled(SPACE);
    mcp = await connectHttp(t, t.key);
  });
  afterAll(async () => {
    await mcp?.close();
    await t?.stop();
  });

  it('lists the agent tools, each with a description and an input schema', async () => {
    const { tools } = await mcp.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(AGENT_TOOLS);
    for (const tool of tools) {
      expect(tool.description!.length, tool.name).toBeGreaterThan(40);
      expect(tool.inputSchema.type).toBe('object');
    }
    const search = tools.find((tool) => tool.name === 'search_events')!;
    expect(Object.keys(search.inputSchema.properties!)).toEqual(
      expect.arrayContaining(['query', 'spaceId', 'threadId', 'temporalIntent']),
    );
  });

  it('runs search → assess → adopt, raising the adopted event’s count by exactly one', async () => {
    const found = await use(mcp, 'search_events', { query: 'Atlas package manager pnpm' });
    expect(found.isError).toBe(false);
    const ref = (found.body.evidenceRefs as string[]).find((r) => r.startsWith('event:'))!;
    const eventId = ref.slice('event:'.length);
    const before = await sg.call('getMemoryEvent', { spaceId: SPACE, eventId });

    const assessed = await use(mcp, 'assess_evidence', {
      batchId: found.body.batchId,
      verdict: 'sufficient',
      evidence_refs: [ref],
      fit: 'says Atlas switched to pnpm',
      next_strategy: 'answer',
    });
    expect(assessed.body).toMatchObject({ verdict: 'sufficient', evidenceRefs: [ref] });
    const adopted = await use(mcp, 'adopt_evidence', {
      batchId: found.body.batchId,
      evidence_refs: [ref],
    });
    expect(adopted.body).toMatchObject({ batchStatus: 'recorded', incremented: 1 });

    await sg.waitUntilSettled(SPACE);
    const after = await sg.call('getMemoryEvent', { spaceId: SPACE, eventId });
    expect(after.weight.mentionCount).toBe(before.weight.mentionCount + 1);
  });

  it('answers a refused call as a tool error with the API code', async () => {
    const missing = await use(mcp, 'expand_event', { eventId: 'evt_nothing' });
    expect(missing.isError).toBe(true);
    expect(missing.body.error).toMatchObject({ code: 'memory_event_not_found', status: 404 });

    const invalid = await use(mcp, 'adopt_evidence', { evidence_refs: ['event:not-in-any'] });
    expect(invalid.isError).toBe(true);
    expect(invalid.body.error.code).toMatch(/^(adoption_rejected|evidence_batch_not_found)$/);

    // Without a configured space, a call must name one.
    const unscoped = await connectHttp(t, t.key, '');
    try {
      const nowhere = await use(unscoped, 'search_events', { query: 'Atlas' });
      expect(nowhere).toMatchObject({
        isError: true,
        body: { error: { code: 'invalid_request' } },
      });
      const named = await use(unscoped, 'search_events', {
        query: 'Atlas',
        spaceId: SPACE,
        threadId: 'named',
      });
      expect(named.isError).toBe(false);
    } finally {
      await unscoped.close();
    }

    // Arguments outside the tool's schema are refused by the MCP server before any call.
    const bad = (await mcp.callTool({
      name: 'search_events',
      arguments: { query: 'x', limit: 99 },
    })) as CallToolResult;
    expect(bad.isError).toBe(true);
  });

  it('lists the topic directory and expands a topic, citing its events', async () => {
    // Topics are built in the background once the space's events and graph are final.
    let listed: Json = {};
    for (let i = 0; i < 600; i++) {
      listed = (await use(mcp, 'list_topics', {})).body;
      if ((listed.topics as unknown[] | undefined)?.length) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(listed.topics.length, JSON.stringify(listed)).toBeGreaterThan(0);
    const topic = await use(mcp, 'expand_topic', { topicId: listed.topics[0].id });
    expect(topic.isError).toBe(false);
    expect(JSON.stringify(topic.body)).toMatch(/evt_/);
    const missing = await use(mcp, 'expand_topic', { topicId: 'topic_000000000000' });
    expect(missing).toMatchObject({ isError: true, body: { error: { code: 'topic_not_found' } } });
  });

  it('weighs memory recorded by agents as the caller asks, in search and the directory', async () => {
    const remembered = await use(mcp, 'remember', {
      content: 'Caroline keeps her climbing shoes in the blue locker.',
    });
    expect(remembered.body).toMatchObject({ outcome: 'ADDED', destination: 'event' });
    const ref = `event:${remembered.body.eventId as string}`;
    await sg.waitUntilSettled(SPACE);
    const refsOf = async (args: Json) => {
      const found = await use(mcp, 'search_events', { query: 'climbing shoes locker', ...args });
      expect(found.isError, JSON.stringify(found.body)).toBe(false);
      return found.body.evidenceRefs as string[];
    };
    expect(await refsOf({})).toContain(ref);
    expect(await refsOf({ agentMemoryWeight: 0 })).not.toContain(ref);
    // The directory takes it too (0 hides chapters holding agent memory), and refuses a bad one.
    const listed = await use(mcp, 'list_topics', { agentMemoryWeight: 0 });
    expect(listed.isError, JSON.stringify(listed.body)).toBe(false);
    const bad = (await mcp.callTool({
      name: 'list_topics',
      arguments: { agentMemoryWeight: 9 },
    })) as CallToolResult;
    expect(bad.isError).toBe(true);
  });

  it('serves the recall context as a resource', async () => {
    const { resources } = await mcp.listResources();
    expect(resources.map((r) => r.uri)).toEqual([recallUri(SPACE, 'agent')]);
    const read = await mcp.readResource({
      uri: recallUri(SPACE, 'agent', 'Which package manager does Atlas use?'),
    });
    const content = read.contents[0] as { text: string; mimeType: string };
    expect(content.mimeType).toBe('text/plain');
    expect(content.text).toMatch(/pnpm/);
  });

  it("keeps another tenant's key to its own tenant, and refuses a missing key", async () => {
    const { key } = await t.node.apiKeys.create('mcp-other', 'mcp test');
    const other = await connectHttp(t, key);
    try {
      const found = await use(other, 'search_events', { query: 'Atlas pnpm' });
      expect(found.isError).toBe(true);
      expect(found.body.error).toMatchObject({ code: 'space_not_found', status: 404 });
    } finally {
      await other.close();
    }
    const noKey = await fetch(`${t.node.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(noKey.status).toBe(401);
    expect(((await noKey.json()) as Json).error.code).toBe('unauthorized');

    // The rest of the edge is the API's: other methods and unknown parameters in the envelope.
    const get = await fetch(`${t.node.url}/mcp`, { headers: { authorization: `Bearer ${t.key}` } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    const unknown = await fetch(`${t.node.url}/mcp?tenant=x`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as Json).error.code).toBe('invalid_request');
  });

  it('serves the same tools over stdio from `stratagate mcp`', async () => {
    const stdio = new Client({ name: 'mcp-e2e-stdio', version: '1.0.0' });
    await stdio.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [
          join(import.meta.dirname, '../bin/stratagate.mjs'),
          'mcp',
          '--url',
          t.node.url!,
          '--space',
          SPACE,
          '--thread',
          'stdio',
        ],
        env: { ...(process.env as Record<string, string>), STRATAGATE_API_KEY: t.key },
        stderr: 'pipe',
      }),
    );
    try {
      const { tools } = await stdio.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(AGENT_TOOLS);
      const remembered = await use(stdio, 'remember', {
        content: 'Caroline prefers tea to coffee.',
        category: 'preference',
      });
      expect(remembered.isError).toBe(false);
      expect(remembered.body).toMatchObject({ outcome: 'ADDED', destination: 'event' });
      const missing = await use(stdio, 'expand_graph_node', { nodeId: 'node_nothing' });
      expect(missing.body.error).toMatchObject({ code: 'graph_node_not_found' });
    } finally {
      await stdio.close();
    }
  });

  let lastStderr = () => '';
  /** `stratagate mcp --in-process` on a data directory, over stdio; its stderr as text. */
  async function connectInProcess(dataDir: string, key?: string) {
    const env = { ...(process.env as Record<string, string>) };
    delete env.DATABASE_URL; // the embedded store, whatever backend this suite runs on
    delete env.STRATAGATE_API_KEY;
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        join(import.meta.dirname, '../bin/stratagate.mjs'),
        'mcp',
        '--in-process',
        '--data-dir',
        dataDir,
        '--space',
        'local',
        '--thread',
        'agent',
        ...(key ? ['--key', key] : []),
      ],
      env,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    lastStderr = () => stderr;
    const client = new Client({ name: 'mcp-e2e-in-process', version: '1.0.0' });
    await client.connect(transport);
    return { client, stderr: () => stderr };
  }

  it('serves the tools from a memory in its own process with `--in-process`', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'sg-mcp-'));
    try {
      // A fresh directory: the memory makes its first key, tells it on stderr, and uses it.
      const first = await connectInProcess(dataDir);
      let key: string;
      try {
        const { tools } = await first.client.listTools();
        expect(tools.map((tool) => tool.name).sort()).toEqual(AGENT_TOOLS);
        // The first call waits for the memory to start (initdb of a fresh directory).
        const remembered = await use(
          first.client,
          'remember',
          { content: 'Caroline keeps her climbing shoes in the blue locker.', category: 'fact' },
          240_000,
        );
        expect(remembered.body).toMatchObject({ outcome: 'ADDED', destination: 'event' });
        key = /\b(sg_\S+)/.exec(first.stderr())![1]!;
      } finally {
        await first.client.close();
      }
      // Started again on the same directory with that key: what it remembered is still there.
      const again = await connectInProcess(dataDir, key);
      try {
        let found: Json = {};
        for (let i = 0; i < 100; i++) {
          found = (await use(again.client, 'search_events', { query: 'climbing shoes locker' }))
            .body;
          if ((found.evidenceRefs as string[] | undefined)?.some((r) => r.startsWith('event:')))
            break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(JSON.stringify(found)).toContain('blue locker');
        expect(again.stderr()).not.toContain(key);
      } finally {
        await again.client.close();
      }
      // A key this store does not know is refused like on the API.
      const stranger = await connectInProcess(dataDir, 'sg_notakey_0000000000000000');
      try {
        const refused = await use(stranger.client, 'search_events', { query: 'locker' }, 240_000);
        expect(refused.isError).toBe(true);
        expect(refused.body.error).toMatchObject({ code: 'unauthorized' });
      } finally {
        await stranger.client.close();
      }
    } catch (error) {
      console.error(`stderr of stratagate mcp --in-process:\n${lastStderr()}`);
      throw error;
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 600_000);
});
