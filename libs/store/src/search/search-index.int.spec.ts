import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bm25Rank,
  docTermFrequencies,
  type RankedId,
  type WeightedField,
} from '@stratagate/domain';
import { sql } from 'kysely';
import type { Database } from '../database.ts';
import { describeBackend, openTestDatabase } from '../test-database.ts';
import { prng } from '../test-random.ts';
import { migrateSearchIndex } from './migrate.ts';
import { setSearchDocStatus, writeSearchDocs } from './maintain.ts';
import { readSearchStats, searchIndex, TOP_K_TUNING, type SearchWork } from './query.ts';
import type { SearchDocKind, SearchSpace } from './tables.ts';

const schema = 'rm_search';
const space: SearchSpace = { tenantId: 't', spaceId: 'search' };

interface Doc {
  id: string;
  threadId: string;
  createdAt: string;
  status: string;
  fields: WeightedField[];
}

const VOCAB = [
  'school',
  'talk',
  'march',
  'lunch',
  'budget',
  'release',
  'weather',
  'alpha',
  'beta',
  'gamma',
  'delta',
  'meeting',
  'plan',
  'deploy',
  'Postgres',
  'index',
  'Li',
  'Ming',
  'hall',
  'friday',
  '学校',
  '演讲',
  '李明',
  '周五',
  '会议',
  '预算',
  'ＰＮＰＭ',
  'café',
  'naïve',
  '42',
];

async function index(db: Database['db'], kind: SearchDocKind, docs: readonly Doc[]) {
  await writeSearchDocs(
    db,
    schema,
    space,
    kind,
    docs.map((d) => ({
      docId: d.id,
      threadId: d.threadId,
      blockId: `blk_${d.threadId}`,
      createdAt: d.createdAt,
      status: d.status,
      ...docTermFrequencies(d.fields),
    })),
  );
}

/** The exhaustive reference over `docs`, ordered as the index orders `kind`. */
function reference(kind: SearchDocKind, query: string, docs: readonly Doc[]): RankedId[] {
  const createdAt = new Map(docs.map((d) => [d.id, d.createdAt]));
  const ranked = bm25Rank(query, docs);
  if (kind === 'event') return ranked;
  return ranked.sort((a, b) => {
    if (a.score !== b.score) return b.score - a.score;
    const ca = createdAt.get(a.id) ?? '';
    const cb = createdAt.get(b.id) ?? '';
    if (ca !== cb) return ca < cb ? 1 : -1;
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  });
}

function expectSameRanking(actual: RankedId[], expected: RankedId[]) {
  expect(actual.map((r) => r.id)).toEqual(expected.map((r) => r.id));
  actual.forEach((r, i) =>
    expect(Math.abs(r.score - (expected[i]?.score ?? NaN))).toBeLessThan(1e-9),
  );
}

describe(`search index (${describeBackend()})`, () => {
  let database: Database;
  const rand = prng(20240501);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const words = (min: number, max: number) =>
    Array.from({ length: min + Math.floor(rand() * (max - min + 1)) }, () => pick(VOCAB)).join(
      rand() < 0.2 ? '' : ' ',
    );
  const threads = ['main', 'side', 'ops', 'zh', 'misc'];
  const messages: Doc[] = Array.from({ length: 300 }, (_, i) => ({
    id: `msg_${String(i).padStart(3, '0')}`,
    threadId: pick(threads),
    // Few distinct timestamps, so created_at ties happen and the id decides.
    createdAt: `2024-03-${String(1 + (i % 9)).padStart(2, '0')}T10:00:00Z`,
    status: 'sealed',
    fields: [{ text: words(2, 14), weight: 1 }],
  }));
  const eventStatuses = ['active', 'active', 'active', 'superseded', 'forgotten', 'archived'];
  const events: Doc[] = Array.from({ length: 60 }, (_, i) => ({
    id: `evt_${String(i).padStart(2, '0')}`,
    threadId: pick(threads),
    createdAt: `2024-03-${String(1 + (i % 5)).padStart(2, '0')}T10:00:00Z`,
    status: pick(eventStatuses),
    fields: [
      { text: words(1, 4), weight: 4 },
      { text: words(2, 8), weight: 3 },
      { text: words(0, 3), weight: 2 },
      { text: words(0, 2), weight: 5 },
      { text: words(0, 3), weight: 0.5 },
    ],
  }));
  const queries = Array.from({ length: 30 }, (_, i) =>
    i % 10 === 9 ? `${pick(VOCAB)} nonexistentword` : words(1, 4),
  );

  beforeAll(async () => {
    database = await openTestDatabase('search_index');
    await migrateSearchIndex(database.db, schema);
    await migrateSearchIndex(database.db, schema); // idempotent
    // Index in a few batches, as the projector would.
    for (let i = 0; i < messages.length; i += 70) {
      await index(database.db, 'message', messages.slice(i, i + 70));
    }
    // Events start active and move to their status, as the projection does.
    await index(
      database.db,
      'event',
      events.map((e) => ({ ...e, status: 'active' })),
    );
    for (const status of ['superseded', 'forgotten', 'archived']) {
      const ids = events.filter((e) => e.status === status).map((e) => e.id);
      await setSearchDocStatus(database.db, schema, space, 'event', ids, status);
    }
  });

  afterAll(async () => {
    await database?.close();
  });

  it('equals an exhaustive BM25 over the whole space, for 30 random queries', async () => {
    let hits = 0;
    for (const query of queries) {
      const actual = await searchIndex(database.db, schema, {
        space,
        kind: 'message',
        query,
        limit: 1000,
      });
      expectSameRanking(actual, reference('message', query, messages));
      hits += actual.length;
    }
    expect(hits).toBeGreaterThan(300);
  });

  it('equals an exhaustive BM25 over the scoped set: thread scope and docIds scope', async () => {
    for (const [i, query] of queries.entries()) {
      const threadId = threads[i % threads.length] as string;
      const inThread = messages.filter((m) => m.threadId === threadId);
      expectSameRanking(
        await searchIndex(database.db, schema, {
          space,
          kind: 'message',
          query,
          limit: 1000,
          threadId,
        }),
        reference('message', query, inThread),
      );
      const subset = messages.filter((_, j) => (j * 7 + i) % 5 === 0);
      expectSameRanking(
        await searchIndex(database.db, schema, {
          space,
          kind: 'message',
          query,
          limit: 1000,
          docIds: subset.map((m) => m.id),
        }),
        reference('message', query, subset),
      );
    }
  });

  it('pages with limit and offset over the same order', async () => {
    for (const query of queries.slice(0, 10)) {
      const expected = reference('message', query, messages);
      const page = await searchIndex(database.db, schema, {
        space,
        kind: 'message',
        query,
        limit: 6,
        offset: 4,
      });
      expectSameRanking(page, expected.slice(4, 10));
    }
  });

  it('events: weighted fields, forgotten and archived never returned, scopes before ranking', async () => {
    const candidates = events.filter((e) => e.status === 'active' || e.status === 'superseded');
    const hidden = new Set(
      events.filter((e) => e.status === 'forgotten' || e.status === 'archived').map((e) => e.id),
    );
    expect(hidden.size).toBeGreaterThan(0);
    for (const [i, query] of queries.entries()) {
      const actual = await searchIndex(database.db, schema, {
        space,
        kind: 'event',
        query,
        limit: 100,
      });
      expectSameRanking(actual, reference('event', query, candidates));
      expect(actual.some((r) => hidden.has(r.id))).toBe(false);
      // A docIds scope that names hidden events still never returns them.
      const subset = events.filter((_, j) => (j + i) % 3 === 0);
      const scoped = await searchIndex(database.db, schema, {
        space,
        kind: 'event',
        query,
        limit: 100,
        docIds: subset.map((e) => e.id),
      });
      expectSameRanking(
        scoped,
        reference(
          'event',
          query,
          subset.filter((e) => !hidden.has(e.id)),
        ),
      );
      const threadId = threads[i % threads.length] as string;
      expectSameRanking(
        await searchIndex(database.db, schema, {
          space,
          kind: 'event',
          query,
          limit: 100,
          threadId,
        }),
        reference(
          'event',
          query,
          candidates.filter((e) => e.threadId === threadId),
        ),
      );
    }
  });

  it('stats are exact per status', async () => {
    const sum = (docs: readonly Doc[]) => ({
      docCount: docs.length,
      totalLength: docs.reduce((n, d) => n + docTermFrequencies(d.fields).length, 0),
    });
    expect(await readSearchStats(database.db, schema, space, 'message')).toEqual(sum(messages));
    expect(await readSearchStats(database.db, schema, space, 'event')).toEqual(sum(events));
    expect(
      await readSearchStats(database.db, schema, space, 'event', ['active', 'superseded']),
    ).toEqual(sum(events.filter((e) => e.status === 'active' || e.status === 'superseded')));
  });

  it('an empty query, a query with no lexical match, an empty scope → []', async () => {
    const base = { space, kind: 'message' as const, limit: 10 };
    expect(await searchIndex(database.db, schema, { ...base, query: '   ' })).toEqual([]);
    expect(await searchIndex(database.db, schema, { ...base, query: 'zebra' })).toEqual([]);
    expect(
      await searchIndex(database.db, schema, { ...base, query: 'school', docIds: [] }),
    ).toEqual([]);
    expect(
      await searchIndex(database.db, schema, { ...base, query: 'school', threadId: 'nope' }),
    ).toEqual([]);
    expect(
      await searchIndex(database.db, schema, {
        ...base,
        space: { tenantId: 't', spaceId: 'other' },
        query: 'school',
      }),
    ).toEqual([]);
  });

  it('finds 李明 among Chinese messages', async () => {
    const zhSpace = { tenantId: 't', spaceId: 'zh' };
    const docs = [
      { id: 'z1', text: '我们周五去学校演讲' },
      { id: 'z2', text: '李明说他周五去学校演讲' },
      { id: 'z3', text: 'Li Ming is not written in Han here' },
      { id: 'z4', text: '明天开会，李老师也来' },
    ];
    await writeSearchDocs(
      database.db,
      schema,
      zhSpace,
      'message',
      docs.map((d) => ({
        docId: d.id,
        threadId: 'zh',
        blockId: 'blk_zh',
        createdAt: '2024-03-01T10:00:00Z',
        status: 'sealed',
        ...docTermFrequencies([{ text: d.text, weight: 1 }]),
      })),
    );
    const hits = await searchIndex(database.db, schema, {
      space: zhSpace,
      kind: 'message',
      query: '李明',
      limit: 6,
    });
    expect(hits.map((h) => h.id)).toEqual(['z2']);
  });

  it('a thread-scoped search never returns another thread’s hit, even one that scores higher', async () => {
    const s = { tenantId: 't', spaceId: 'threads' };
    const doc = (id: string, threadId: string, text: string) => ({
      docId: id,
      threadId,
      blockId: `blk_${threadId}`,
      createdAt: '2024-03-01T10:00:00Z',
      status: 'sealed',
      ...docTermFrequencies([{ text, weight: 1 }]),
    });
    await writeSearchDocs(database.db, schema, s, 'message', [
      doc('a1', 'other', 'school talk school talk in March'),
      doc('b1', 'mine', 'we had lunch after the school meeting'),
      doc('b2', 'mine', 'nothing relevant here'),
    ]);
    const all = await searchIndex(database.db, schema, {
      space: s,
      kind: 'message',
      query: 'school talk',
      limit: 6,
    });
    expect(all[0]?.id).toBe('a1');
    const mine = await searchIndex(database.db, schema, {
      space: s,
      kind: 'message',
      query: 'school talk',
      limit: 6,
      threadId: 'mine',
    });
    expect(mine.map((h) => h.id)).toEqual(['b1']);
  });

  it('ranks the planted best hit first among 1,001 messages', async () => {
    const s = { tenantId: 't', spaceId: 'planted' };
    const topics = ['lunch', 'weather', 'school', 'talk', 'budget', 'release', 'march'];
    const corpus = Array.from({ length: 1001 }, (_, i) => ({
      id: `t${String(i).padStart(4, '0')}`,
      text: `turn ${i} we chatted about ${topics[i % 7]} and ${topics[(i * 3) % 7]} again`,
    }));
    corpus[613] = { id: 'planted', text: 'the school talk is on 12 March in the main hall' };
    await writeSearchDocs(
      database.db,
      schema,
      s,
      'message',
      corpus.map((d, i) => ({
        docId: d.id,
        threadId: i % 2 === 0 ? 'even' : 'odd',
        blockId: `blk_${Math.floor(i / 20)}`,
        createdAt: `2024-03-01T10:${String(i % 60).padStart(2, '0')}:00Z`,
        status: 'sealed',
        ...docTermFrequencies([{ text: d.text, weight: 1 }]),
      })),
    );
    const query = 'when is the school talk in March';
    const hits = await searchIndex(database.db, schema, {
      space: s,
      kind: 'message',
      query,
      limit: 6,
    });
    expect(hits[0]?.id).toBe('planted');
    const all = await searchIndex(database.db, schema, {
      space: s,
      kind: 'message',
      query,
      limit: 2000,
    });
    expect(all.length).toBeGreaterThan(100);
    const ref = bm25Rank(
      query,
      corpus.map((d) => ({ id: d.id, fields: [{ text: d.text, weight: 1 }] })),
    );
    expect(all.map((h) => h.score).sort((a, b) => b - a)).toEqual(
      ref.map((r) => expect.closeTo(r.score, 9)),
    );
  });
});

describe(`search index: exact top k without reading every posting (${describeBackend()})`, () => {
  let database: Database;
  const rand = prng(777);
  // A Zipf vocabulary: w0 is in most documents, w299 in a handful.
  const vocab = Array.from({ length: 300 }, (_, i) => `w${i}`);
  const zipf = () => vocab[Math.min(vocab.length - 1, Math.floor(1 / (rand() + 1 / 301)) - 1)]!;
  const words = (n: number) => Array.from({ length: n }, zipf).join(' ');
  const zSpace: SearchSpace = { tenantId: 't', spaceId: 'zipf' };
  const messages: Doc[] = Array.from({ length: 4000 }, (_, i) => ({
    id: `m${String(i).padStart(4, '0')}`,
    threadId: 'z',
    createdAt: `2024-04-${String(1 + (i % 20)).padStart(2, '0')}T10:00:00Z`,
    status: 'sealed',
    fields: [{ text: words(3 + Math.floor(rand() * 12)), weight: 1 }],
  }));
  const eventStatuses = ['active', 'active', 'superseded', 'forgotten'];
  const events: Doc[] = Array.from({ length: 1500 }, (_, i) => ({
    id: `e${String(i).padStart(4, '0')}`,
    threadId: 'z',
    createdAt: '2024-04-01T10:00:00Z',
    status: eventStatuses[i % eventStatuses.length]!,
    fields: [
      { text: words(2), weight: 4 },
      { text: words(6), weight: 1 },
    ],
  }));
  // Two to seven terms: frequent ones (function-word-like) with a rarer one or two.
  const queries = Array.from({ length: 40 }, () =>
    Array.from({ length: 2 + Math.floor(rand() * 6) }, () =>
      rand() < 0.6 ? `w${Math.floor(rand() * 12)}` : zipf(),
    ).join(' '),
  );

  beforeAll(async () => {
    database = await openTestDatabase('search_top_k');
    await migrateSearchIndex(database.db, schema);
    for (let i = 0; i < messages.length; i += 500) {
      await writeSearchDocs(
        database.db,
        schema,
        zSpace,
        'message',
        messages.slice(i, i + 500).map((d) => ({
          docId: d.id,
          threadId: d.threadId,
          blockId: 'blk_z',
          createdAt: d.createdAt,
          status: d.status,
          ...docTermFrequencies(d.fields),
        })),
      );
    }
    await writeSearchDocs(
      database.db,
      schema,
      zSpace,
      'event',
      events.map((d) => ({
        docId: d.id,
        threadId: d.threadId,
        blockId: 'blk_z',
        createdAt: d.createdAt,
        status: 'active',
        ...docTermFrequencies(d.fields),
      })),
    );
    for (const status of ['superseded', 'forgotten']) {
      const ids = events.filter((e) => e.status === status).map((e) => e.id);
      await setSearchDocStatus(database.db, schema, zSpace, 'event', ids, status);
    }
  });

  afterAll(async () => {
    await database?.close();
  });

  /**
   * Query `i` of the set over the messages, one page of it (limits 1–20, every fifth from offset
   * 3), checked against the reference ranker. Returns what the search read, how many postings
   * the query's terms have, and how many documents match.
   */
  async function searchPage(i: number, query: string) {
    const expected = reference('message', query, messages);
    const limit = [1, 5, 10, 20][i % 4]!;
    const offset = i % 5 === 0 ? 3 : 0;
    const work: SearchWork = {};
    const actual = await searchIndex(database.db, schema, {
      space: zSpace,
      kind: 'message',
      query,
      limit,
      offset,
      work,
    });
    expectSameRanking(actual, expected.slice(offset, offset + limit));
    expect(work.plan).toBe('top-k');
    const terms = [...new Set(query.split(' '))];
    const postings = messages.reduce((n, m) => {
      const vector = docTermFrequencies(m.fields).terms;
      return n + terms.filter((t) => vector.has(`word:${t}`)).length;
    }, 0);
    return { work, postings, matching: expected.length };
  }

  it('returns exactly the reference top k (pages too), reading each query term’s postings once', async () => {
    for (const [i, query] of queries.entries()) {
      const { work, postings } = await searchPage(i, query);
      // The corpus is far smaller than one batch of postings: every term is read, once, and the
      // postings read are exactly those of the query's terms.
      expect(work.termsRead).toBe(work.terms);
      expect(work.postingsRead).toBe(postings);
      expect(work.docsScored).toBe(0);
    }
  });

  it('with a small batch of postings, skips frequent terms and completes few documents (MaxScore)', async () => {
    const saved = { ...TOP_K_TUNING };
    // The cost model of a space hundreds of times larger: postings read in small batches,
    // completing a document worth a few postings.
    Object.assign(TOP_K_TUNING, { docCost: 8, postingsBatch: 4_000 });
    let read = 0;
    let all = 0;
    let scoredDocs = 0;
    let matching = 0;
    try {
      for (const [i, query] of queries.entries()) {
        const page = await searchPage(i, query);
        all += page.postings;
        read += page.work.postingsRead ?? 0;
        scoredDocs += page.work.docsScored ?? 0;
        matching += page.matching;
      }
    } finally {
      Object.assign(TOP_K_TUNING, saved);
    }
    // The rare terms' postings and the documents that could still make the top k, not the rest.
    expect(all).toBeGreaterThan(10_000);
    expect(read / all).toBeLessThan(0.5);
    expect(scoredDocs / matching).toBeLessThan(0.2);
  });

  it('events: per-status term statistics keep the top k exact after status moves', async () => {
    const candidates = events.filter((e) => e.status === 'active' || e.status === 'superseded');
    for (const [i, query] of queries.entries()) {
      const limit = [3, 8][i % 2]!;
      const actual = await searchIndex(database.db, schema, {
        space: zSpace,
        kind: 'event',
        query,
        limit,
      });
      expectSameRanking(actual, reference('event', query, candidates).slice(0, limit));
      // Only the forgotten ones, when asked for.
      const forgotten = events.filter((e) => e.status === 'forgotten');
      expectSameRanking(
        await searchIndex(database.db, schema, {
          space: zSpace,
          kind: 'event',
          query,
          limit,
          statuses: ['forgotten'],
        }),
        reference('event', query, forgotten).slice(0, limit),
      );
    }
  });

  it('search_terms: exact df per status, bounds that hold for every posting', async () => {
    // The view joins decoded postings to their documents: without statistics the planner takes
    // it for one row and joins it again by nested loop.
    await sql`analyze`.execute(database.db);
    const rows = await sql<{
      key: string;
      df: number | null;
      max_tf: number;
      min_length_per_tf: number;
      real_df: number | null;
      real_max_tf: number;
      real_min_length_per_tf: number;
    }>`
      with real as (
        select p.doc_kind, p.term, d.status, count(*)::int as df, max(p.tf) as max_tf,
          min(d.length::float8 / p.tf) as min_length_per_tf
        from ${sql.id(schema, 'search_postings')} p
        join ${sql.id(schema, 'search_docs')} d on d.tenant_id = p.tenant_id
          and d.space_id = p.space_id and d.doc_kind = p.doc_kind and d.doc_id = p.doc_id
        where p.space_id = ${zSpace.spaceId}
        group by p.doc_kind, p.term, d.status
      ),
      kept as (select * from ${sql.id(schema, 'search_terms')} where space_id = ${zSpace.spaceId})
      select concat_ws(' ', coalesce(k.doc_kind, r.doc_kind), coalesce(k.term, r.term),
          coalesce(k.status, r.status)) as key,
        k.df, k.max_tf, k.min_length_per_tf,
        r.df as real_df, r.max_tf as real_max_tf, r.min_length_per_tf as real_min_length_per_tf
      from kept k
      full join real r on r.doc_kind = k.doc_kind and r.term = k.term and r.status = k.status
    `.execute(database.db);
    expect(rows.rows.length).toBeGreaterThan(300);
    // Each posting carries its document's current length and status (status moves included).
    const stale = await sql<{ n: number }>`
      select count(*)::int as n
      from ${sql.id(schema, 'search_postings')} p
      join ${sql.id(schema, 'search_docs')} d on d.tenant_id = p.tenant_id
        and d.space_id = p.space_id and d.doc_kind = p.doc_kind and d.doc_id = p.doc_id
      where p.space_id = ${zSpace.spaceId} and (p.status <> d.status or p.length <> d.length)
    `.execute(database.db);
    expect(stale.rows[0]?.n).toBe(0);
    for (const r of rows.rows) {
      // Every (term, status) with documents has its row, with the exact count; a bucket a
      // status move emptied keeps a row with df 0.
      expect(r.df, r.key).toBe(r.real_df ?? 0);
      if (r.real_df !== null) {
        expect(r.max_tf, r.key).toBeGreaterThanOrEqual(r.real_max_tf);
        expect(r.min_length_per_tf, r.key).toBeLessThanOrEqual(r.real_min_length_per_tf);
      }
    }
  });

  it('a schema with a row per posting, from before term statistics, is numbered, packed and brought up to date by migrate', async () => {
    const t = (name: string) => sql.id(schema, name);
    const dump = async () => {
      const out: Record<string, unknown[]> = {};
      for (const table of ['search_docs', 'search_postings', 'search_terms']) {
        const r = await sql<Record<string, unknown>>`
          select * from ${t(table)}
          where space_id = ${zSpace.spaceId} and doc_kind = 'message'
          order by 1, 2, 3, 4, 5`.execute(database.db);
        // Numbers are the only thing a migrated schema may assign differently.
        out[table] = r.rows.map(({ doc_no: _n, ...rest }) => rest);
      }
      return out;
    };
    const before = await dump();
    expect((before['search_terms'] ?? []).length).toBeGreaterThan(200);
    // The index as an earlier version left it: a row per posting without the copies of length
    // and status, no document numbers, no vectors, no term statistics.
    await sql`create table ${t('old_postings')} as
      select tenant_id, space_id, doc_kind, term, doc_id, tf from ${t('search_postings')}`.execute(
      database.db,
    );
    await sql`drop view ${t('search_postings')}`.execute(database.db);
    await sql`drop table ${t('search_posting_chunks')}, ${t('search_doc_numbers')}, ${t('search_terms')}`.execute(
      database.db,
    );
    await sql`alter table ${t('search_docs')} drop column doc_no, drop column terms, drop column tfs`.execute(
      database.db,
    );
    await sql`alter table ${t('old_postings')} rename to search_postings`.execute(database.db);
    await sql`alter table ${t('search_postings')}
      add constraint search_postings_pkey
        primary key (tenant_id, space_id, doc_kind, term, doc_id)`.execute(database.db);
    await migrateSearchIndex(database.db, schema);
    expect(await dump()).toEqual(before);
    const kinds = await sql<{ kind: string }>`
      select relkind::text as kind from pg_class
      where oid = to_regclass(${`${schema}.search_postings`})`.execute(database.db);
    expect(kinds.rows[0]?.kind).toBe('v');
    for (const [i, query] of queries.slice(0, 5).entries()) {
      const limit = 5 + i;
      expectSameRanking(
        await searchIndex(database.db, schema, { space: zSpace, kind: 'message', query, limit }),
        reference('message', query, messages).slice(0, limit),
      );
    }
    // New documents are numbered after the migrated ones.
    const numbers = await sql<{ n: number; next: number }>`
      select (select count(distinct doc_no)::int from ${t('search_docs')}
          where space_id = ${zSpace.spaceId} and doc_kind = 'message') as n,
        (select next_no from ${t('search_doc_numbers')}
          where space_id = ${zSpace.spaceId} and doc_kind = 'message') as next`.execute(
      database.db,
    );
    expect(numbers.rows[0]).toEqual({ n: messages.length, next: messages.length });
  });
});
