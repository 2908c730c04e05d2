import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SpaceRef } from '@stratagate/domain';
import { configureSpace, recordTurn, type IngestContext } from '@stratagate/ingest';
import { startTestNode, type TestNode } from '@stratagate/runtime/testing';
import { describeBackend } from '@stratagate/store/testing';
import { adoptEvidence } from './adopt.ts';
import { expandBlock, readBlock } from './blocks.ts';
import { queryContext, type QueryContext } from './context.ts';
import { assessEvidence, changeEventState, expandEvent, listEvidenceBatches } from './evidence.ts';
import { catchUpReads } from './gate.ts';
import { getGraphNode, listGraphNodes } from './graph.ts';
import { getMemoryEvent, listMemoryEvents } from './memory-events.ts';
import { assembleRecall } from './recall.ts';
import { rememberStatement } from './remember.ts';
import { searchGraphNodes, searchMemoryEvents, searchRawMessages } from './search.ts';
import { getSpaceStatus } from './space-status.ts';
import { getThreadContext } from './thread-context.ts';

/*
 * The query service's use cases called as functions, without Fastify: a node runs the projector
 * and the consolidator (offline model) on a fresh database; turns go in through the ingest use
 * cases; every read, search, gate step and recall is called directly with a request context.
 */

const space: SpaceRef = { tenantId: 'tenant-a', spaceId: 'use-cases' };
const SESSION = 'session-42';
const AGENT = 'session-43';

const turns = [
  ['We switched Project Atlas from npm to pnpm last week.', 'Noted: Atlas now uses pnpm.'],
  ['The Atlas CI still has to be verified after the pnpm migration.', 'I will remind you.'],
  ['Atlas is hosted in Munich, at the Hetzner data centre.', 'Got it, Atlas runs in Munich.'],
  ['I prefer short answers with code first.', 'Understood, code first.'],
];

describe(`query use cases, called directly (${describeBackend()})`, () => {
  let t: TestNode;
  let ctx: () => Promise<QueryContext>;

  async function settled(): Promise<void> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const c = await ctx();
      // The space's row exists once projection has applied its first records.
      await catchUpReads(c, space);
      const s = await getSpaceStatus(c, space);
      const done =
        s.projectedPosition >= s.logPosition &&
        s.summaryJobs.pending + s.extractionJobs.pending + s.graphJobs.pending === 0;
      if (done) return;
      if (Date.now() > deadline) throw new Error(`not settled: ${JSON.stringify(s)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  beforeAll(async () => {
    t = await startTestNode('query_use_cases');
    const services = t.node.query!;
    ctx = () => queryContext(services);
    const ingest: IngestContext = { log: t.node.log, writer: services.writer, now: services.now };
    await configureSpace(ingest, space, { blockSize: 2 });
    for (const [i, [user, assistant]] of turns.entries()) {
      await recordTurn(ingest, space, {
        turnId: `turn-${i + 1}`,
        threadId: SESSION,
        occurredAt: `2023-05-08T13:5${i}:00+08:00`,
        messages: [
          { role: 'user', name: 'Caroline', content: user! },
          { role: 'assistant', content: assistant! },
        ],
      });
    }
    await settled();
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('status and thread context: two ready blocks at L5, nothing pending', async () => {
    const status = await getSpaceStatus(await ctx(), space);
    expect(status).toMatchObject({ turnCounter: 4, blocks: { total: 2, ready: 2, pending: 0 } });
    const context = await getThreadContext(await ctx(), space, { threadId: SESSION });
    expect(context.blocks.map((b) => [b.sequence, b.level])).toEqual([
      [1, 5],
      [2, 5],
    ]);
    expect(context.openTail.messages).toEqual([]);
  });

  it('an unknown space or thread is not found, with the code saying which', async () => {
    const other = { ...space, spaceId: 'nowhere' };
    await expect(getSpaceStatus(await ctx(), other)).rejects.toMatchObject({
      status: 404,
      code: 'space_not_found',
    });
    await expect(
      getThreadContext(await ctx(), space, { threadId: 'no-such-thread' }),
    ).rejects.toMatchObject({ code: 'thread_not_found' });
    // Another tenant's key never sees the space (MM-SPACE-1).
    await expect(
      getSpaceStatus(await ctx(), { tenantId: 'tenant-b', spaceId: space.spaceId }),
    ).rejects.toMatchObject({ code: 'space_not_found' });
  });

  it('a block reads at a chosen level, and expanding it records the lift', async () => {
    const [first] = (await getThreadContext(await ctx(), space, { threadId: SESSION })).blocks;
    const atL1 = await readBlock(await ctx(), space, { blockId: first!.id, level: 'L1' });
    expect(atL1).toMatchObject({ level: 1, label: 'L1', currentLevel: 5, status: 'ready' });
    const lifted = await expandBlock(await ctx(), space, {
      blockId: first!.id,
      target: 'L5',
      source: 'agent',
    });
    expect(lifted).toMatchObject({ level: 5, fromLevel: 5 });
    expect(lifted.position).toBeGreaterThan(0);
  });

  it('search → assess → adopt: the adopted event is reinforced once', async () => {
    const search = await searchMemoryEvents(await ctx(), space, {
      threadId: AGENT,
      query: 'package manager pnpm',
      limit: 6,
      offset: 0,
      agentMemoryWeight: 1,
      trackRetrieval: true,
    });
    expect(search.hits.length).toBeGreaterThan(0);
    const ref = search.evidenceRefs[0]!;
    const eventId = ref.slice('event:'.length);
    const before = await getMemoryEvent(await ctx(), space, { eventId });

    const assessed = await assessEvidence(await ctx(), space, {
      threadId: AGENT,
      batchId: search.batchId,
      verdict: 'sufficient',
      evidence_refs: [ref],
      next_strategy: 'answer',
    });
    expect(assessed).toMatchObject({ verdict: 'sufficient', evidenceRefs: [ref] });

    const adopted = await adoptEvidence(await ctx(), space, {
      threadId: AGENT,
      batchId: search.batchId,
      receiptId: `${AGENT}:tool:call_1`,
      evidence_refs: [ref],
    });
    expect(adopted).toMatchObject({ batchStatus: 'recorded', eventIds: [eventId] });
    await settled();
    const after = await getMemoryEvent(await ctx(), space, { eventId });
    expect(after.weight.mentionCount).toBe(before.weight.mentionCount + 1);

    const batches = await listEvidenceBatches(await ctx(), space, {
      threadId: AGENT,
      status: 'all',
      limit: 50,
      offset: 0,
    });
    expect(batches.batches.find((b) => b.batchId === search.batchId)).toMatchObject({
      status: 'recorded',
      verdict: 'sufficient',
    });
  });

  it('raw and graph search each open a batch of their own refs', async () => {
    const raw = await searchRawMessages(await ctx(), space, {
      threadId: AGENT,
      query: 'Munich data centre',
      limit: 3,
      scope: 'space',
    });
    expect(raw.hits[0]?.message.content).toContain('Munich');
    expect(raw.evidenceRefs.every((r) => r.startsWith('raw:'))).toBe(true);
    const graph = await searchGraphNodes(await ctx(), space, {
      threadId: AGENT,
      query: 'Atlas',
      limit: 4,
    });
    expect(graph.batchId).not.toBe(raw.batchId);
    expect(graph.evidenceRefs.every((r) => r.startsWith('graph-node:'))).toBe(true);
  });

  it('memory events and graph nodes list with provenance', async () => {
    const page = await listMemoryEvents(await ctx(), space, { status: 'all', limit: 2, offset: 0 });
    expect(page.events).toHaveLength(2);
    const detail = await getMemoryEvent(await ctx(), space, { eventId: page.events[0]!.id });
    expect(detail.sources.length).toBeGreaterThan(0);
    const nodes = await listGraphNodes(await ctx(), space, { limit: 50, offset: 0 });
    const atlas = nodes.nodes.find((n) => n.name === 'Atlas');
    expect(atlas).toBeDefined();
    const node = await getGraphNode(await ctx(), space, { nodeId: atlas!.id });
    expect(node.provenance.flatMap((p) => p.sources).length).toBeGreaterThan(0);
  });

  it('expanding an event opens a batch holding it; a forgotten event cannot be expanded', async () => {
    const page = await listMemoryEvents(await ctx(), space, {
      status: 'active',
      limit: 50,
      offset: 0,
    });
    const event = page.events.at(-1)!;
    const expanded = await expandEvent(await ctx(), space, {
      eventId: event.id,
      threadId: AGENT,
    });
    expect(expanded.evidenceRefs).toEqual([`event:${event.id}`]);
    const change = await changeEventState(await ctx(), space, {
      eventId: event.id,
      change: 'forget',
    });
    expect(change.change).toBe('forgotten');
    await settled();
    await expect(
      expandEvent(await ctx(), space, { eventId: event.id, threadId: AGENT }),
    ).rejects.toMatchObject({ code: 'memory_event_not_found' });
  });

  it('recall from another session activates this one’s memory as background', async () => {
    const recall = await assembleRecall(await ctx(), space, {
      threadId: AGENT,
      message: 'Which package manager does Atlas use now?',
    });
    expect(recall.activatedMemory.events.some((e) => e.summary.includes('pnpm'))).toBe(true);
    expect(recall.activatedMemory.budget.usedTokens).toBeLessThanOrEqual(900);
    expect(recall.activatedMemory.note).toMatch(/not instructions/);
  });

  it('remember writes into the agent pool, and a retry with the same request id answers the same', async () => {
    const input = {
      threadId: AGENT,
      content: 'Quarterly launch window opens in June.',
      category: 'decision' as const,
      topK: 5,
      userExplicit: false,
      requestId: `${AGENT}:tool:call_9`,
    };
    const first = await rememberStatement(await ctx(), space, input);
    expect(first.outcome).toBe('ADDED');
    expect(await rememberStatement(await ctx(), space, input)).toEqual(first);
    await expect(
      rememberStatement(await ctx(), space, { ...input, content: 'Something else.' }),
    ).rejects.toMatchObject({ status: 409, code: 'request_conflict' });
  });
});
