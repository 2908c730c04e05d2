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
  'list_blocks',
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
async function use(client: Client, name: string, args: Json = {}) {
  const res = (await client.callTool({ name, arguments: args })) as CallToolResult;
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
});
