import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import {
  bm25Rank,
  docTermFrequencies,
  graphNodeSearchFields,
  type GraphSearchView,
  type RankedId,
} from '@stratagate/domain';
import type { AnyDb, Database } from '../database.ts';
import { describeBackend, openTestDatabase } from '../test-database.ts';
import { prng } from '../test-random.ts';
import { migrateSearchIndex } from './migrate.ts';
import { replaceSearchDocs, writeSearchDocs, type SearchDocInput } from './maintain.ts';
import { readSearchStats, searchIndex } from './query.ts';
import { SEARCH_INDEX_TABLES, type SearchSpace } from './tables.ts';

/*
 * Graph nodes are re-indexed whole whenever their effective view changes (issue 4, MM-RET-5). This
 * spec drives `replaceSearchDocs` through a long random sequence of updates, removals and
 * redeliveries and checks that the node index then equals a fresh index of the final documents,
 * row for row (postings, documents, statistics), and that BM25 over it equals the reference ranker.
 */

const live = 'rm_replace_live';
const fresh = 'rm_replace_fresh';
const space: SearchSpace = { tenantId: 't', spaceId: 'graph' };

const VOCAB = [
  'pnpm',
  'npm',
  'acme',
  'berlin',
  'munich',
  'pending',
  'verification',
  'alphacorp',
  'betacorp',
  'uses',
  'works_at',
  'project',
  'tool',
  'ci',
  'location',
  'A公司',
  'B公司',
  '李明',
  'prototype',
  'release',
];

interface NodeDoc {
  id: string;
  status: string;
  view: GraphSearchView;
}

async function dumpKind(db: AnyDb, schema: string, kind: string) {
  const out: Record<string, unknown[]> = {};
  for (const [table, keys] of Object.entries(SEARCH_INDEX_TABLES)) {
    const rows = await sql<Record<string, unknown>>`
      select * from ${sql.id(schema, table)} where doc_kind = ${kind}
      order by ${sql.join(keys.map((k) => sql.ref(k)))}`.execute(db);
    out[table] = rows.rows.map(({ doc_no: _n, ...r }) => ({
      ...r,
      // bigint columns come back as strings from a server and as numbers from PGlite.
      ...('doc_count' in r ? { doc_count: Number(r.doc_count) } : {}),
      ...('total_length' in r ? { total_length: Number(r.total_length) } : {}),
    }));
  }
  return out;
}

const input = (doc: NodeDoc): SearchDocInput => ({
  docId: doc.id,
  threadId: null,
  blockId: null,
  createdAt: '2024-05-01T09:00:00.000Z',
  status: doc.status,
  ...docTermFrequencies(graphNodeSearchFields(doc.view)),
});

describe(`search index: whole-document replacement for graph nodes (${describeBackend()})`, () => {
  let database: Database;
  const rand = prng(424242);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const words = (max: number) =>
    Array.from({ length: Math.floor(rand() * (max + 1)) }, () => pick(VOCAB)).join(' ');
  const version = (id: string): NodeDoc => ({
    id,
    status: pick(['active', 'active', 'active', 'disputed', 'archived']),
    view: {
      id,
      name: words(2) || id,
      type: pick(['project', 'tool', 'person', 'organization']),
      aliases: [words(1)].filter(Boolean),
      tags: [words(2)].filter(Boolean),
      currentFacts: Array.from({ length: Math.floor(rand() * 3) }, (_, i) => ({
        id: `f${i}`,
        key: pick(['ci', 'location', 'company']),
        value: words(3),
      })),
      historicalFacts: Array.from({ length: Math.floor(rand() * 2) }, (_, i) => ({
        id: `h${i}`,
        key: 'company',
        value: [words(1), words(1)],
      })),
      currentEdges: Array.from({ length: Math.floor(rand() * 3) }, (_, i) => ({
        id: `e${i}`,
        relation: pick(['uses', 'works_at', 'depends on']),
        endpointId: 'n',
        endpointName: words(2),
        direction: 'out' as const,
      })),
      historicalEdges: [],
    },
  });
  const ids = Array.from({ length: 40 }, (_, i) => `node_${String(i).padStart(2, '0')}`);
  const final = new Map<string, NodeDoc>();

  beforeAll(async () => {
    database = await openTestDatabase('search_replace');
    await migrateSearchIndex(database.db, live);
    await migrateSearchIndex(database.db, fresh);
    // Documents of other kinds in the same space must be left exactly as they are.
    await writeSearchDocs(database.db, live, space, 'event', [
      {
        docId: 'node_01', // the same id as a node: kinds never mix
        threadId: 't',
        blockId: 'b',
        createdAt: '2024-05-01T09:00:00Z',
        status: 'active',
        ...docTermFrequencies([{ text: 'pnpm npm acme', weight: 3 }]),
      },
    ]);
  });

  afterAll(async () => {
    await database?.close();
  });

  it('after 80 random replacements (with removals and redeliveries) equals a fresh index', async () => {
    const events = await dumpKind(database.db, live, 'event');
    for (let step = 0; step < 80; step++) {
      const touched = [
        ...new Set(Array.from({ length: 1 + Math.floor(rand() * 5) }, () => pick(ids))),
      ];
      const docs: NodeDoc[] = [];
      for (const id of touched) {
        // One in five updates makes the node invisible: its document must disappear.
        if (rand() < 0.2) final.delete(id);
        else {
          const doc = version(id);
          final.set(id, doc);
          docs.push(doc);
        }
      }
      const apply = () =>
        replaceSearchDocs(database.db, live, space, 'node', {
          docIds: touched,
          docs: docs.map(input),
        });
      await database.db.transaction().execute(async (trx) => {
        const r = await replaceSearchDocs(trx, live, space, 'node', {
          docIds: touched,
          docs: docs.map(input),
        });
        expect(r.written).toBe(docs.length);
      });
      if (step % 10 === 0) {
        // Redelivery: the same replacement again leaves the index as it was.
        const before = await dumpKind(database.db, live, 'node');
        await apply();
        expect(await dumpKind(database.db, live, 'node')).toEqual(before);
      }
    }
    expect(final.size).toBeGreaterThan(10);
    await writeSearchDocs(database.db, fresh, space, 'node', [...final.values()].map(input));
    expect(await dumpKind(database.db, live, 'node')).toEqual(
      await dumpKind(database.db, fresh, 'node'),
    );
    expect(await dumpKind(database.db, live, 'event')).toEqual(events);
    const lengths = [...final.values()].map(
      (d) => docTermFrequencies(graphNodeSearchFields(d.view)).length,
    );
    expect(await readSearchStats(database.db, live, space, 'node')).toEqual({
      docCount: final.size,
      totalLength: lengths.reduce((a, b) => a + b, 0),
    });
  });

  it('BM25 over the maintained node index equals the reference ranker (active + disputed only)', async () => {
    const candidates = [...final.values()].filter((d) => d.status !== 'archived');
    expect(candidates.length).toBeLessThan(final.size);
    const reference = (query: string): RankedId[] =>
      bm25Rank(
        query,
        candidates.map((d) => ({ id: d.id, fields: graphNodeSearchFields(d.view) })),
      );
    let hits = 0;
    for (let i = 0; i < 25; i++) {
      const query = i % 8 === 7 ? `${pick(VOCAB)} nonexistentword` : words(3) || 'pnpm';
      const actual = await searchIndex(database.db, live, {
        space,
        kind: 'node',
        query,
        limit: 100,
      });
      const expected = reference(query);
      expect(actual.map((r) => r.id)).toEqual(expected.map((r) => r.id));
      actual.forEach((r, j) =>
        expect(Math.abs(r.score - (expected[j]?.score ?? NaN))).toBeLessThan(1e-9),
      );
      hits += actual.length;
    }
    expect(hits).toBeGreaterThan(25);
    // A relation word is indexed (weight 1): BM25 finds it; the match rule drops such hits later.
    const works = await searchIndex(database.db, live, {
      space,
      kind: 'node',
      query: 'works_at',
      limit: 100,
    });
    expect(works.map((r) => r.id)).toEqual(reference('works_at').map((r) => r.id));
  });

  it('replacing with nothing removes the document and its statistics bucket', async () => {
    const s = { tenantId: 't', spaceId: 'single' };
    const doc = input(version('node_x'));
    await replaceSearchDocs(database.db, live, s, 'node', { docIds: [], docs: [doc] });
    expect((await readSearchStats(database.db, live, s, 'node')).docCount).toBe(1);
    const r = await replaceSearchDocs(database.db, live, s, 'node', {
      docIds: ['node_x'],
      docs: [],
    });
    expect(r).toEqual({ removed: 1, written: 0 });
    const rows = await sql<{ n: number }>`
      select count(*)::int as n from ${sql.id(live, 'search_stats')}
      where tenant_id = 't' and space_id = 'single'`.execute(database.db);
    expect(rows.rows[0]?.n).toBe(0);
    expect(await replaceSearchDocs(database.db, live, s, 'node', { docIds: [], docs: [] })).toEqual(
      { removed: 0, written: 0 },
    );
  });
});
