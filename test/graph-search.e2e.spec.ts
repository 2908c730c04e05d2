import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import {
  ExtractionOutput,
  GraphProposal,
  type ExtractionInput,
  type GraphProposalInput,
  type ModelPort,
} from '@stratagate/model';
import { coreProjection, createProjector, reindexGraphNodes } from '@stratagate/projector';
import {
  dumpReadModel,
  replaceSearchDocs,
  searchIndex,
  type ReadModelTables,
} from '@stratagate/store';
import { describeBackend } from '@stratagate/store/testing';
import { startTestNode, type TestNode } from './harness.ts';

/*
 * Graph search end to end (MM-RET-5, issue 4), on scenario S1 (memory-model.md §15) plus two
 * facts: X –uses→ npm becomes X –uses→ pnpm, stage prototype becomes beta, CI is pending
 * verification, X is hosted in Munich. A scripted model turns each user message into one memory
 * event and proposes the graph for it; everything after the model is the real pipeline.
 */

const S = '/v1/spaces/graph';
const E1 = 'Project X uses npm.';
const E2 = 'We switched X to pnpm.';
const E3 = 'CI still has to be verified after the migration.';
const E4 = 'X is hosted in Munich.';

function scriptedModel(): ModelPort & { calls: number } {
  const model = {
    name: 'scripted-s1',
    calls: 0,
    async summarizeBlock() {
      model.calls += 1;
      return {
        output: {
          title: 'Project X build',
          tags: ['project-x'],
          summary: 'The build of project X was discussed.',
          keyPoints: ['Project X build discussed.'],
          shouldExtract: true,
        },
        provider: 'scripted',
        promptVersion: 'scripted@1',
      };
    },
    async extractMemoryEvents(input: ExtractionInput) {
      model.calls += 1;
      const npm = input.timeline.find((t) => t.title === E1);
      const events = input.messages
        .filter((m) => m.role === 'user')
        .map((m) => ({
          title: m.content,
          summary: m.content,
          sourceMessageIds: [m.messageId],
          scope: 'project',
          temporal: { mentionedAt: m.occurredAt, status: 'occurred' },
          relations: {
            supersedesEventIds: m.content === E2 && npm ? [npm.id] : [],
          },
        }));
      return {
        output: ExtractionOutput.parse({ events }),
        provider: 'scripted',
        promptVersion: 'scripted@1',
      };
    },
    async proposeGraph(input: GraphProposalInput) {
      model.calls += 1;
      const id = (title: string) => input.events.find((e) => e.title === title)?.id;
      const x = input.nodes.find((n) => n.name === 'X')?.id ?? 'x';
      const nodes: unknown[] = [];
      const edges: unknown[] = [];
      const facts: unknown[] = [];
      const xSources: string[] = [];
      const e1 = id(E1);
      if (e1) {
        xSources.push(e1);
        facts.push({ key: 'stage', value: 'prototype', sourceEventIds: [e1] });
        nodes.push({
          ref: 'npm',
          name: 'npm',
          type: 'tool',
          nameSourceEventIds: [e1],
          sourceEventIds: [e1],
        });
        edges.push({ fromRef: x, toRef: 'npm', relation: 'uses', sourceEventIds: [e1] });
      }
      const e2 = id(E2);
      if (e2) {
        xSources.push(e2);
        facts.push({ key: 'stage', value: 'beta', sourceEventIds: [e2] });
        nodes.push({
          ref: 'pnpm',
          name: 'pnpm',
          type: 'tool',
          nameSourceEventIds: [e2],
          sourceEventIds: [e2],
        });
        edges.push({ fromRef: x, toRef: 'pnpm', relation: 'uses', sourceEventIds: [e2] });
      }
      const e3 = id(E3);
      if (e3) {
        xSources.push(e3);
        facts.push({ key: 'ci', value: 'pending verification', sourceEventIds: [e3] });
      }
      const e4 = id(E4);
      if (e4) {
        xSources.push(e4);
        facts.push({ key: 'location', value: 'Munich', sourceEventIds: [e4] });
      }
      nodes.unshift({
        ref: x,
        name: 'X',
        type: 'project',
        nameSourceEventIds: [xSources[0]],
        sourceEventIds: xSources,
        facts,
      });
      return {
        output: GraphProposal.parse({ nodes, edges }),
        provider: 'scripted',
        promptVersion: 'scripted@1',
      };
    },
  };
  return model;
}

interface Hit {
  ref: string;
  id: string;
  name: string;
  type: string;
  currentState: string;
  status: string;
  rankScore: number;
  scoreMeaning: string;
  matchType: string;
  matchedFields: string[];
  matchReason: string;
  matchedFacts: { key: string; value: string; timeline: string; citedEventIds: string[] }[];
  matchedEdges: { relation: string; fromName: string; toName: string; timeline: string }[];
  provenanceEventIds: string[];
  timeline: { eventId: string; title: string; sourceTime: string }[];
}

describe(`graph search over the Postgres index (MM-RET-5) (${describeBackend()})`, () => {
  let t: TestNode;
  const model = scriptedModel();
  const events = new Map<string, string>(); // title → id

  beforeAll(async () => {
    t = await startTestNode('graph_search', { model });
    await t.request('PUT', `${S}/settings`, { blockSize: 1 });
    await t.request('POST', `${S}/turns`, {
      turnId: 'm1',
      threadId: 's',
      occurredAt: '2024-05-01T09:00:00Z',
      messages: [
        { role: 'user', content: E1 },
        { role: 'assistant', content: 'Noted.' },
      ],
    });
    await t.settle('graph');
    await t.request('POST', `${S}/turns`, {
      turnId: 'm2',
      threadId: 's',
      occurredAt: '2024-05-06T09:00:00Z',
      messages: [
        { role: 'user', content: E2 },
        { role: 'user', content: E3 },
        { role: 'user', content: E4 },
        { role: 'assistant', content: 'Understood.' },
      ],
    });
    await t.settle('graph');
    const list = (await t.request('GET', `${S}/memory-events`)).body.events as {
      id: string;
      title: string;
    }[];
    for (const e of list) events.set(e.title, e.id);
  });
  afterAll(async () => {
    await t?.stop();
  });

  const search = async (query: string, limit?: number) => {
    const res = await t.request('POST', `${S}/threads/s/search/graph`, {
      query,
      ...(limit ? { limit } : {}),
    });
    expect(res.status).toBe(200);
    return res.body as { batchId: string; evidenceRefs: string[]; hits: Hit[] };
  };
  const byName = (hits: Hit[], name: string) => hits.find((h) => h.name === name);

  it('the scenario produced the S1 graph', async () => {
    expect([...events.keys()].sort()).toEqual([E3, E1, E4, E2].sort());
    const nodes = (await t.request('GET', `${S}/graph/nodes`)).body.nodes as {
      name: string;
      currentState: string;
    }[];
    expect(nodes.map((n) => n.name).sort()).toEqual(['X', 'npm', 'pnpm']);
    const x = nodes.find((n) => n.name === 'X')!;
    expect(x.currentState).toContain('stage: beta');
    expect(x.currentState).toContain('location: Munich');
  });

  it('"pnpm" finds project X, matchType current via its current endpoint, as a graph card', async () => {
    const { hits, evidenceRefs, batchId } = await search('pnpm');
    expect(batchId).toMatch(/^batch_\d+$/);
    expect(hits.map((h) => h.name).sort()).toEqual(['X', 'pnpm']);
    expect(evidenceRefs).toEqual(hits.map((h) => h.ref));
    const x = byName(hits, 'X')!;
    expect(x).toMatchObject({
      ref: `graph-node:${x.id}`,
      type: 'project',
      status: 'active',
      matchType: 'current',
      matchedFields: ['currentEndpoint'],
      matchedFacts: [],
      matchedEdges: [{ relation: 'uses', fromName: 'X', toName: 'pnpm', timeline: 'current' }],
    });
    expect(x.matchReason).toContain('current edge X –uses→ pnpm');
    expect(x.scoreMeaning).toMatch(/never a probability of truth/);
    expect(x.rankScore).toBeGreaterThan(0);
    expect(x.currentState).toBe('ci: pending verification; location: Munich; stage: beta');
    // Provenance: ≤ 6 visible events; the timeline lists them in time order with titles.
    expect(x.provenanceEventIds.length).toBeLessThanOrEqual(6);
    expect(new Set(x.provenanceEventIds)).toEqual(new Set(events.values()));
    expect(x.timeline.map((e) => e.title)[0]).toBe(E1);
    expect(x.timeline.map((e) => e.sourceTime)).toEqual(
      [...x.timeline.map((e) => e.sourceTime)].sort(),
    );
    expect(byName(hits, 'pnpm')).toMatchObject({ matchType: 'current', matchedFields: ['name'] });
  });

  it('recall activates graph hits for another session, and skips them in the session they came from', async () => {
    const other = await t.request('POST', `${S}/threads/elsewhere/recall`, {
      message: 'which package manager does X use, pnpm?',
    });
    expect(other.status).toBe(200);
    const nodes = other.body.activatedMemory.graphNodes as { name: string; ref: string }[];
    expect(nodes.map((n) => n.name)).toContain('X');
    expect(nodes.length).toBeLessThanOrEqual(4);
    expect(other.body.activatedMemory.budget.usedTokens).toBeLessThanOrEqual(900);
    const same = await t.request('POST', `${S}/threads/s/recall`, {
      message: 'which package manager does X use, pnpm?',
    });
    expect(same.body.activatedMemory.graphNodes).toEqual([]);
  });

  it('a query that matches only historical facts reports historical', async () => {
    const { hits } = await search('prototype');
    expect(hits.map((h) => h.name)).toEqual(['X']);
    expect(hits[0]).toMatchObject({
      matchType: 'historical',
      matchedFields: ['historicalFact'],
      matchedFacts: [{ key: 'stage', value: 'prototype', timeline: 'historical' }],
    });
    expect(hits[0]!.matchedFacts[0]!.citedEventIds).toEqual([events.get(E1)]);
    // The old tool: X matches through its historical edge, npm itself by name.
    const npm = await search('npm');
    expect(byName(npm.hits, 'X')).toMatchObject({
      matchType: 'historical',
      matchedFields: ['historicalEndpoint'],
    });
    // Both timelines at once.
    expect(byName((await search('npm pnpm')).hits, 'X')?.matchType).toBe('both');
  });

  it('a query that matches only a relation word returns nothing, though BM25 finds candidates', async () => {
    const candidates = await searchIndex(
      t.node.database.db,
      t.node.config.STRATAGATE_READ_MODEL_SCHEMA,
      {
        space: { tenantId: 'local', spaceId: 'graph' },
        kind: 'node',
        query: 'uses',
        limit: 20,
      },
    );
    expect(candidates.length).toBe(3);
    const { hits, evidenceRefs, batchId } = await search('uses');
    expect(hits).toEqual([]);
    expect(evidenceRefs).toEqual([]);
    expect(batchId).toMatch(/^batch_\d+$/); // an empty search still opens its batch
  });

  it('a query word equal to a fact key restricts matching to that key’s values', async () => {
    const located = await search('location Munich');
    expect(located.hits.map((h) => h.name)).toEqual(['X']);
    expect(located.hits[0]!.matchedFacts.map((f) => [f.key, f.value])).toEqual([
      ['location', 'Munich'],
    ]);
    expect(located.hits[0]!.matchReason).toContain('restricted to key location');
    // "verification" is a value of `ci`, not of `location`: no fact match, no hit.
    expect((await search('location verification')).hits).toEqual([]);
    const ci = await search('verification');
    expect(ci.hits[0]!.matchedFacts.map((f) => f.key)).toEqual(['ci']);
  });

  it('validates the body: query 1–2000 chars, limit 1–20 (default 8)', async () => {
    for (const body of [{ query: '' }, { query: 'x'.repeat(2001) }, { query: 'x', limit: 21 }]) {
      const res = await t.request('POST', `${S}/threads/s/search/graph`, body);
      expect(res.status).toBe(400);
    }
    expect((await search('pnpm', 1)).hits).toHaveLength(1);
    const unknown = await t.request('POST', '/v1/spaces/nope/threads/s/search/graph', {
      query: 'pnpm',
    });
    expect(unknown.status).toBe(404);
  });

  it('hits open a search_graph batch; adopting graph-node:<id> reinforces its provenance events', async () => {
    const { batchId, hits } = await search('what does X use now? pnpm');
    const x = byName(hits, 'X')!;
    const batches = (await t.request('GET', `${S}/threads/s/batches?status=all`)).body.batches as {
      batchId: string;
      operation: string;
      evidenceRefs: string[];
    }[];
    expect(batches.find((b) => b.batchId === batchId)).toMatchObject({
      operation: 'search_graph',
      evidenceRefs: hits.map((h) => h.ref),
    });
    const mentions = async () =>
      new Map(
        (
          (await t.request('GET', `${S}/memory-events`)).body.events as {
            id: string;
            weight: { mentionCount: number };
          }[]
        ).map((e) => [e.id, e.weight.mentionCount]),
      );
    const before = await mentions();
    const assessed = await t.request('POST', `${S}/threads/s/assess`, {
      batchId,
      verdict: 'sufficient',
      evidence_refs: [x.ref],
      fit: 'X uses pnpm now',
      next_strategy: 'answer',
    });
    expect(assessed.body).toMatchObject({ verdict: 'sufficient', evidenceRefs: [x.ref] });
    const adopted = await t.request('POST', `${S}/threads/s/adopt`, {
      batchId,
      receiptId: 'graph-search:adopt-1',
      evidence_refs: [x.ref],
    });
    expect(adopted.status).toBe(200);
    expect(adopted.body).toMatchObject({ batchStatus: 'recorded', evidenceRefs: [x.ref] });
    expect(new Set(adopted.body.eventIds)).toEqual(new Set(events.values()));
    await t.settle('graph');
    const after = await mentions();
    for (const id of adopted.body.eventIds as string[]) {
      expect(after.get(id)).toBe((before.get(id) ?? 0) + 1);
    }
  });

  it('forgetting the only source of a fact re-indexes the node: the fact leaves graph search; restore brings it back', async () => {
    const candidates = async (query: string) =>
      (
        await searchIndex(t.node.database.db, t.node.config.STRATAGATE_READ_MODEL_SCHEMA, {
          space: { tenantId: 'local', spaceId: 'graph' },
          kind: 'node',
          query,
          limit: 20,
        })
      ).map((r) => r.id);
    const e4 = events.get(E4)!;
    const xId = byName((await search('pnpm')).hits, 'X')!.id;
    expect(await candidates('Munich')).toEqual([xId]);
    await t.request('POST', `${S}/memory-events/${e4}/forget`);
    await t.settle('graph');
    // The document itself changed (not only the read-time match): Munich is no longer indexed.
    expect(await candidates('Munich')).toEqual([]);
    expect((await search('Munich')).hits).toEqual([]);
    const x = byName((await search('pnpm')).hits, 'X')!;
    expect(x.currentState).not.toContain('Munich');
    expect(x.provenanceEventIds).not.toContain(e4);
    await t.request('POST', `${S}/memory-events/${e4}/restore`);
    await t.settle('graph');
    expect(await candidates('Munich')).toEqual([xId]);
    expect((await search('Munich')).hits.map((h) => h.name)).toEqual(['X']);
    // The CI source stays forgotten, so the final index below differs from the unforgotten one.
    await t.request('POST', `${S}/memory-events/${events.get(E3)!}/forget`);
    await t.settle('graph');
    expect(await candidates('verification')).toEqual([]);
  });

  it('a rebuild from position 0 gives identical search tables, equal to a fresh index of the final nodes', async () => {
    await t.settle('graph');
    await t.node.consolidator!.stop();
    await t.node.projector!.stop();
    const calls = model.calls;
    const db = t.node.database.db;
    const schema = 'rm_graph_search_rebuild';
    await createProjector({ db, log: t.node.log, schema, projection: coreProjection }).catchUp();
    const live = await dumpReadModel(db, t.node.config.STRATAGATE_READ_MODEL_SCHEMA);
    const rebuilt = await dumpReadModel(db, schema);
    expect(rebuilt).toEqual(live);
    expect(model.calls).toBe(calls);
    const nodeDocs = (rows: unknown[]) =>
      (rows as { doc_kind: string }[]).filter((r) => r.doc_kind === 'node');
    expect(nodeDocs(rebuilt.search_docs!)).toHaveLength(3);

    // Wipe the node documents and index every node from scratch: the same tables.
    const space = { tenantId: 'local', spaceId: 'graph' };
    const nodeIds = (rebuilt.graph_nodes as { node_id: string }[]).map((n) => n.node_id);
    await db.transaction().execute(async (trx) => {
      await replaceSearchDocs(trx, schema, space, 'node', { docIds: nodeIds, docs: [] });
      expect(nodeDocs((await dumpReadModel(trx, schema)).search_docs!)).toEqual([]);
      await reindexGraphNodes(
        (trx as unknown as Kysely<ReadModelTables>).withSchema(schema),
        schema,
        space,
        nodeIds,
      );
    });
    expect(await dumpReadModel(db, schema)).toEqual(live);
  });
});
