import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { Database } from './database.ts';
import { describeBackend, openTestDatabase } from './test-database.ts';
import { migrateTopicBudget, reserveTopicModelCall, TOPIC_HISTORY_BUDGET } from './topic-budget.ts';

/* MM-TOP-9: two model calls per ten minutes for the whole installation, reserved durably. */
let database: Database;
const t0 = Date.parse('2026-06-01T09:00:00Z');
const at = (minutes: number) => new Date(t0 + minutes * 60_000);
const call = (jobId: string, minutes: number, spaceId = 'a') =>
  reserveTopicModelCall(database.db, { jobId, tenantId: 't', spaceId, now: at(minutes) });

describe(`the topic history budget (${describeBackend()})`, () => {
  beforeAll(async () => {
    database = await openTestDatabase('topic_budget');
    await migrateTopicBudget(database.db);
  });
  afterAll(async () => {
    await database?.close();
  });

  it('grants two calls in ten minutes across spaces, then says when the next one is free', async () => {
    expect(TOPIC_HISTORY_BUDGET).toEqual({ calls: 2, windowMs: 600_000 });
    expect(await call('job-1', 0, 'a')).toEqual({ granted: true });
    expect(await call('job-2', 3, 'b')).toEqual({ granted: true });
    expect(await call('job-3', 4, 'c')).toEqual({ granted: false, retryAt: at(10) });
    // The same job asking again (a restart mid-call) spends nothing more.
    expect(await call('job-2', 5, 'b')).toEqual({ granted: true });
    expect(await call('job-3', 10.5, 'c')).toEqual({ granted: true });
    expect(await call('job-4', 11, 'a')).toEqual({ granted: false, retryAt: at(13) });
  });

  it('keeps what was spent across processes: the reservations are rows, not memory', async () => {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from control.topic_model_calls`.execute(database.db);
    expect(rows[0]!.n).toBe(3);
  });

  it('counts an unreadable budget as spent', async () => {
    await sql`alter table control.topic_model_calls rename to topic_model_calls_broken`.execute(
      database.db,
    );
    try {
      expect(await call('job-9', 60)).toEqual({ granted: false, retryAt: at(70) });
    } finally {
      await sql`alter table control.topic_model_calls_broken rename to topic_model_calls`.execute(
        database.db,
      );
    }
  });
});
