import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { docTermFrequencies, type RankedId } from '@stratagate/domain';
import type { AnyDb, Database } from '../database.ts';
import { describeBackend, openTestDatabase } from '../test-database.ts';
import { prng } from '../test-random.ts';
import { migrateSearchIndex } from './migrate.ts';
import {
  replaceSearchDocs,
  setSearchDocStatus,
  writeSearchDocs,
  type SearchDocInput,
} from './maintain.ts';
import { CHUNK_DOCS } from './packed-postings.ts';
import { PostingCache } from './posting-cache.ts';
import { searchIndex, TOP_K_TUNING, type SearchIndexQuery, type SearchWork } from './query.ts';
import type { SearchDocKind, SearchSpace } from './tables.ts';

/*
 * ADR 0018: a query process caches packed postings and documents. A cached search must equal an
 * uncached one after any write (appends, status moves, whole replacements that empty chunks, a
 * dropped and rebuilt index), and it must read only what changed.
 */

const space: SearchSpace = { tenantId: 't', spaceId: 'cache' };

const VOCAB = [
  'school',
  'talk',
  'march',
  'budget',
  'release',
  'alpha',
  'beta',
  'gamma',
  'meeting',
  'deploy',
  'index',
  '学校',
  '演讲',
  'hall',
  'friday',
  'lunch',
];
const STATUSES = ['active', 'superseded', 'forgotten', 'archived'];

function doc(id: string, text: string, status = 'active', threadId = 'th-1'): SearchDocInput {
  return {
    docId: id,
    threadId,
    blockId: null,
    createdAt: `2024-05-01T09:00:${String(Number(id.replace(/\D/g, '')) % 60).padStart(2, '0')}.000Z`,
    status,
    ...docTermFrequencies([{ text, weight: 1 }]),
  };
}

describe(`search index: the posting cache (ADR 0018, ${describeBackend()})`, () => {
  let database: Database;
  let db: AnyDb;
  const tuning = { ...TOP_K_TUNING };

  beforeAll(async () => {
    database = await openTestDatabase('posting_cache');
    db = database.db;
  }, 120_000);

  afterAll(async () => {
    Object.assign(TOP_K_TUNING, tuning);
    await database?.close();
  });

  async function fresh(schema: string) {
    await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(db);
    await migrateSearchIndex(db, schema);
  }

  /** The same search with the cache and without; returns both and what the cached one read. */
  async function both(
    schema: string,
    cache: PostingCache,
    q: Omit<SearchIndexQuery, 'space' | 'cache' | 'work'>,
  ): Promise<{ cached: RankedId[]; uncached: RankedId[]; work: SearchWork }> {
    const work: SearchWork = {};
    const cached = await searchIndex(db, schema, { space, ...q, cache, work });
    const uncached = await searchIndex(db, schema, { space, ...q });
    return { cached, uncached, work };
  }

  it('a repeated search reads no chunk; an append reads only the chunks it wrote', async () => {
    const schema = 'rm_cache_append';
    await fresh(schema);
    const cache = new PostingCache(8 * 1024 * 1024);
    // Documents spread over three chunks of numbers.
    const docs = Array.from({ length: 3 * CHUNK_DOCS }, (_, i) =>
      doc(`e${i}`, `${VOCAB[i % VOCAB.length]} ${VOCAB[(i * 7) % VOCAB.length]} school`),
    );
    await writeSearchDocs(db, schema, space, 'event', docs);
    const q = { kind: 'event' as SearchDocKind, query: 'school budget talk', limit: 5 };

    const first = await both(schema, cache, q);
    expect(first.cached).toEqual(first.uncached);
    expect(first.cached.length).toBe(5);
    expect(first.work.chunksRead).toBeGreaterThan(0);

    const again = await both(schema, cache, q);
    expect(again.cached).toEqual(first.cached);
    expect(again.work.chunksRead).toBe(0);
    expect(cache.stats().hits).toBeGreaterThan(0);

    // A new document with two of the three terms: their last chunks change, nothing else.
    await writeSearchDocs(db, schema, space, 'event', [
      doc('e-new', 'school budget budget budget talk talk talk'),
    ]);
    const after = await both(schema, cache, q);
    expect(after.cached).toEqual(after.uncached);
    expect(after.cached[0]?.id).toBe('e-new');
    // school, budget, talk and their stems: one chunk each
    expect(after.work.chunksRead).toBe(6);
  });

  it('status moves, emptied chunks and scoped searches: cached equals uncached after every write', async () => {
    const schema = 'rm_cache_random';
    await fresh(schema);
    const cache = new PostingCache(8 * 1024 * 1024);
    const rand = prng(77);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
    const words = (n: number) => Array.from({ length: n }, () => pick(VOCAB)).join(' ');
    // Small batches, so the MaxScore path reads, skips and completes through the cache too.
    Object.assign(TOP_K_TUNING, { docCost: 2, postingsBatch: 40 });
    let next = 0;
    const events: string[] = [];
    const nodes: string[] = [];
    for (let step = 0; step < 40; step++) {
      const op = step < 3 ? 0 : Math.floor(rand() * 4);
      if (op === 0) {
        const batch = Array.from({ length: 20 + Math.floor(rand() * 60) }, () => {
          const id = `e${next++}`;
          events.push(id);
          return doc(id, words(1 + Math.floor(rand() * 6)), pick(STATUSES), pick(['th-1', 'th-2']));
        });
        await writeSearchDocs(db, schema, space, 'event', batch);
      } else if (op === 1) {
        const ids = Array.from({ length: 1 + Math.floor(rand() * 15) }, () => pick(events));
        await setSearchDocStatus(db, schema, space, 'event', ids, pick(STATUSES));
      } else if (op === 2) {
        // Graph nodes replaced whole: a node's old postings go, which empties chunks.
        const id = rand() < 0.5 || nodes.length === 0 ? `n${next++}` : pick(nodes);
        if (!nodes.includes(id)) nodes.push(id);
        await replaceSearchDocs(db, schema, space, 'node', {
          docIds: [id],
          docs: rand() < 0.2 ? [] : [doc(id, words(1 + Math.floor(rand() * 4)), 'active')],
        });
      } else {
        const ids = Array.from({ length: 3 }, () => pick(nodes.length ? nodes : ['n-none']));
        await replaceSearchDocs(db, schema, space, 'node', { docIds: ids, docs: [] });
      }
      for (let i = 0; i < 4; i++) {
        const query = words(1 + Math.floor(rand() * 4));
        const kind: SearchDocKind = rand() < 0.6 ? 'event' : 'node';
        const scope = rand() < 0.25 ? { threadId: pick(['th-1', 'th-2']) } : {};
        const r = await both(schema, cache, { kind, query, limit: 4, offset: i % 2, ...scope });
        expect(r.cached, `step ${step}: ${kind} "${query}"`).toEqual(r.uncached);
      }
    }
    const stats = cache.stats();
    expect(stats.hits).toBeGreaterThan(0);
    expect(stats.refreshedChunks).toBeGreaterThan(0);
    // Emptied chunks stay as rows, so the cache hears of them.
    const empty = await sql<{ n: number }>`
      select count(*)::int as n from ${sql.id(schema, 'search_posting_chunks')}
      where length(data) = 0`.execute(db);
    expect(empty.rows[0]!.n).toBeGreaterThan(0);
    Object.assign(TOP_K_TUNING, tuning);
  });

  it('versions follow the writes: every chunk a write touches carries a version above all before it', async () => {
    const schema = 'rm_cache_versions';
    await fresh(schema);
    await writeSearchDocs(db, schema, space, 'event', [doc('e1', 'alpha beta'), doc('e2', 'beta')]);
    const v1 = await versions(schema);
    await setSearchDocStatus(db, schema, space, 'event', ['e1'], 'forgotten');
    const v2 = await versions(schema);
    expect(v2.get('alpha')!).toBeGreaterThan(Math.max(...v1.values()));
    expect(v2.get('beta')!).toBe(v2.get('alpha'));
    await writeSearchDocs(db, schema, space, 'event', [doc('e3', 'gamma')]);
    const v3 = await versions(schema);
    expect(v3.get('gamma')!).toBeGreaterThan(v2.get('beta')!);
    expect(v3.get('alpha')).toBe(v2.get('alpha'));
  });

  async function versions(schema: string): Promise<Map<string, number>> {
    const rows = await sql<{ term: string; version: number }>`
      select term, max(version)::float8 as version from ${sql.id(schema, 'search_posting_chunks')}
      group by term`.execute(db);
    return new Map(rows.rows.map((r) => [r.term.replace(/^word:/, ''), Number(r.version)]));
  }

  it('a dropped and rebuilt index (a new epoch) voids everything cached under the old one', async () => {
    const schema = 'rm_cache_epoch';
    await fresh(schema);
    const cache = new PostingCache(8 * 1024 * 1024);
    await writeSearchDocs(db, schema, space, 'event', [
      doc('old-1', 'school talk'),
      doc('old-2', 'school'),
    ]);
    const q = { kind: 'event' as SearchDocKind, query: 'school talk', limit: 5 };
    expect((await both(schema, cache, q)).cached.map((r) => r.id)).toEqual(['old-1', 'old-2']);

    // Rebuilt from scratch: the same numbers and versions now mean other documents.
    await fresh(schema);
    await writeSearchDocs(db, schema, space, 'event', [
      doc('new-1', 'school'),
      doc('new-2', 'school talk talk'),
    ]);
    const r = await both(schema, cache, q);
    expect(r.cached).toEqual(r.uncached);
    expect(r.cached.map((x) => x.id)).toEqual(['new-2', 'new-1']);
  });

  it('a cache smaller than the index evicts and stays within its bytes, with the same results', async () => {
    const schema = 'rm_cache_small';
    await fresh(schema);
    const cache = new PostingCache(4096);
    const rand = prng(5);
    const docs = Array.from({ length: 600 }, (_, i) =>
      doc(
        `e${i}`,
        Array.from({ length: 5 }, () => VOCAB[Math.floor(rand() * VOCAB.length)]).join(' '),
      ),
    );
    await writeSearchDocs(db, schema, space, 'event', docs);
    for (const query of ['school talk', 'alpha beta gamma', 'lunch hall friday', 'school talk']) {
      const r = await both(schema, cache, { kind: 'event', query, limit: 6 });
      expect(r.cached).toEqual(r.uncached);
      expect(cache.stats().bytes).toBeLessThanOrEqual(4096);
    }
  });
});
