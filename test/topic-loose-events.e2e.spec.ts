import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeRecord } from '@stratagate/domain';
import { createOfflineProvider, type ModelPort } from '@stratagate/model';
import { createCoreProjection } from '@stratagate/projector';
import { startTestNode, type TestNode } from '@stratagate/runtime/testing';
import { dumpReadModel, migrateReadModel, type ReadModelTables } from '@stratagate/store';
import { describeBackend } from '@stratagate/store/testing';

/*
 * ADR 0054: the directory's loose events (visible events no chapter holds) and their counts are
 * kept by the projection at the end of each batch, so recall and the status read them instead of
 * every event of the space. Here topic building fails until the test lets it succeed, so the
 * events stay loose long enough to be counted, forgotten, restored and finally placed; after every
 * step the kept set equals the set computed from the events and chapters themselves.
 */
const SPACE = 'loose';
const PLACES = ['Lisbon', 'Porto', 'Madrid', 'Seville', 'Valencia', 'Bilbao', 'Granada'];
const TURNS = 52;

describe(`the directory's loose events (${describeBackend()})`, () => {
  let t: TestNode;
  let schema: string;
  let topicsWork = false;
  // Building chapters over a history with a model spends a budget of calls per 10 minutes
  // (MM-TOP-9); the last step moves this clock on instead of waiting.
  let skew = 0;
  const offline = createOfflineProvider();
  const model: ModelPort = {
    ...offline,
    async buildTopics(input, options) {
      if (!topicsWork) throw new Error('topic model unavailable');
      return offline.buildTopics!(input, options);
    },
  };
  const rm = (name = schema) => (t.node.database.db as Kysely<ReadModelTables>).withSchema(name);

  /** The kept set and counts, and the same computed from the events and chapters. */
  async function kept(name = schema) {
    const rows = await rm(name)
      .selectFrom('topic_loose_events')
      .select(['event_id', 'created_at', 'criticality', 'event_type'])
      .where('tenant_id', '=', 'local')
      .where('space_id', '=', SPACE)
      .orderBy('event_id')
      .execute();
    const counts = await rm(name)
      .selectFrom('topic_loose_counts')
      .select(['criticality', 'event_type', 'n'])
      .where('tenant_id', '=', 'local')
      .where('space_id', '=', SPACE)
      .orderBy('criticality')
      .orderBy('event_type')
      .execute();
    // Computed from the events and chapters themselves, not from the kept set.
    const computed = await rm(name)
      .selectFrom('memory_events as e')
      .select(['e.event_id', 'e.created_at', 'e.criticality', 'e.event_type'])
      .where('e.tenant_id', '=', 'local')
      .where('e.space_id', '=', SPACE)
      .where('e.status', 'in', ['active', 'superseded'])
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('topic_members as m')
              .select('m.event_id')
              .whereRef('m.tenant_id', '=', 'e.tenant_id')
              .whereRef('m.space_id', '=', 'e.space_id')
              .whereRef('m.event_id', '=', 'e.event_id'),
          ),
        ),
      )
      .orderBy('e.event_id')
      .execute();
    const tally = new Map<string, number>();
    for (const r of computed) {
      const key = `${r.criticality}/${r.event_type}`;
      tally.set(key, (tally.get(key) ?? 0) + 1);
    }
    expect(rows).toEqual(computed);
    expect(
      Object.fromEntries(counts.map((c) => [`${c.criticality}/${c.event_type}`, Number(c.n)])),
    ).toEqual(Object.fromEntries(tally));
    return rows.map((r) => r.event_id);
  }
  const status = async () => (await t.request('GET', `/v1/spaces/${SPACE}/status`)).body;
  async function until<T>(what: string, probe: () => Promise<T>, done: (v: T) => boolean) {
    const deadline = Date.now() + 180_000;
    for (;;) {
      const v = await probe();
      if (done(v)) return v;
      if (Date.now() > deadline) throw new Error(`${what}: gave up at ${JSON.stringify(v)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const recallDirectory = async () => {
    const res = await t.request('POST', `/v1/spaces/${SPACE}/threads/asking/recall`, {
      message: 'Where did I travel?',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.directory as { text: string; topicCount: number; form: string };
  };

  beforeAll(async () => {
    t = await startTestNode('topic_loose', {
      model,
      now: () => new Date(Date.now() + skew),
      config: { STRATAGATE_TOPIC_BUILDER: 'model' },
    });
    schema = await t.node.readModel.get();
    expect((await t.request('PUT', `/v1/spaces/${SPACE}/settings`, { blockSize: 1 })).status).toBe(
      200,
    );
    for (let i = 0; i < TURNS; i++) {
      const res = await t.request('POST', `/v1/spaces/${SPACE}/turns`, {
        threadId: `trip-${i}`,
        occurredAt: new Date(Date.parse('2026-05-01T09:00:00Z') + i * 3_600_000).toISOString(),
        messages: [
          {
            role: 'user',
            name: 'Ana',
            content: `I visited ${PLACES[i % PLACES.length]} with Tom on trip ${i + 1}.`,
          },
        ],
      });
      expect(res.status).toBe(202);
    }
    await until('every block extracted, the topic job failing', status, (s) =>
      Boolean(
        s.projectedPosition >= s.logPosition &&
        s.blocks.pending === 0 &&
        s.extractionJobs.pending === 0 &&
        s.graphJobs.pending === 0 &&
        s.topicJobs.status === 'failed',
      ),
    );
  }, 300_000);
  afterAll(async () => {
    await t?.stop();
  });

  it('counts every visible event without a chapter, in the status and in recall', async () => {
    const loose = await kept();
    expect(loose.length).toBeGreaterThanOrEqual(TURNS);
    expect((await status()).topicJobs.unassignedEvents).toBe(loose.length);
    // More loose events than recall lists one per line: the rest are counted by category.
    const directory = await recallDirectory();
    expect(directory.topicCount).toBe(loose.length);
  });

  it('a read model made before these tables fills them once, when migrated', async () => {
    const before = await kept();
    const table = (name: string) => sql.table(`${schema}.${name}`);
    await t.node.database.db.transaction().execute(async (trx) => {
      await sql`drop table ${table('topic_loose_events')}, ${table('topic_loose_counts')}`.execute(
        trx,
      );
      await migrateReadModel(trx, schema);
    });
    expect(await kept()).toEqual(before);
  });

  it('a forgotten event leaves the set and a restored one comes back', async () => {
    const before = await kept();
    const eventId = before[3]!;
    const forget = await t.request('POST', `/v1/spaces/${SPACE}/memory-events/${eventId}/forget`);
    expect(forget.status, JSON.stringify(forget.body)).toBe(202);
    await until('the forget projected', status, (s) => s.projectedPosition >= s.logPosition);
    const afterForget = await kept();
    expect(afterForget).not.toContain(eventId);
    expect(afterForget).toHaveLength(before.length - 1);
    expect((await status()).topicJobs.unassignedEvents).toBe(before.length - 1);

    const restore = await t.request('POST', `/v1/spaces/${SPACE}/memory-events/${eventId}/restore`);
    expect(restore.status, JSON.stringify(restore.body)).toBe(202);
    await until('the restore projected', status, (s) => s.projectedPosition >= s.logPosition);
    expect(await kept()).toEqual(before);
  });

  it('events placed in chapters leave the set; a replay keeps the same set', async () => {
    topicsWork = true;
    const retry = await t.request('POST', `/v1/spaces/${SPACE}/topics/retry`);
    expect(retry.status, JSON.stringify(retry.body)).toBeLessThan(300);
    await until(
      'every event in a chapter',
      async () => {
        skew += 11 * 60_000;
        return status();
      },
      (s) => Boolean(s.projectedPosition >= s.logPosition && s.topicJobs.unassignedEvents === 0),
    );
    expect(await kept()).toEqual([]);
    expect((await recallDirectory()).text).not.toContain('fallback:');

    // A replay from position 0 builds the same set and counts as the live projection.
    const replay = 'rm_loose_replay';
    const db = t.node.database.db;
    await migrateReadModel(db, replay);
    const records = (await t.node.log.readAll(0, 100_000))
      .map((r) => decodeRecord(r))
      .filter((r) => r !== null);
    await db.transaction().execute((trx) => createCoreProjection().handle(trx, replay, records));
    await kept(replay);
    const live = await dumpReadModel(db, schema);
    const again = await dumpReadModel(db, replay);
    expect(again.topic_loose_events).toEqual(live.topic_loose_events);
    expect(again.topic_loose_counts).toEqual(live.topic_loose_counts);
  });
});
