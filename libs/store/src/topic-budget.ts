import { sql } from 'kysely';
import { migrateUnderLock, type AnyDb } from './database.ts';

/**
 * MM-TOP-9: the installation-wide budget for the model calls that build topics over a space's
 * existing history (ADR 0048). A call is reserved durably, in one transaction under a lock, before
 * it is made; a restart keeps what was spent, and a job that runs again after a crash finds its
 * own reservation instead of spending twice.
 */
export const TOPIC_HISTORY_BUDGET = { calls: 2, windowMs: 10 * 60_000 } as const;

export async function migrateTopicBudget(db: AnyDb): Promise<void> {
  await migrateUnderLock(db, 'stratagate.control', 'topic-budget', async (trx) => {
    await sql`create schema if not exists control`.execute(trx);
    await sql`create table if not exists control.topic_model_calls (
      job_id text primary key,
      tenant_id text not null,
      space_id text not null,
      reserved_at timestamptz not null
    )`.execute(trx);
  });
}

export type TopicBudgetAnswer = { granted: true } | { granted: false; retryAt: Date };

/**
 * Reserves one call for `jobId` at `now`, if fewer than `calls` were reserved in the window
 * before it; otherwise says when the oldest of them leaves the window. A budget that cannot be
 * read counts as spent (MM-TOP-9): history waits, nothing is called.
 */
export async function reserveTopicModelCall(
  db: AnyDb,
  call: { jobId: string; tenantId: string; spaceId: string; now: Date },
  budget: { calls: number; windowMs: number } = TOPIC_HISTORY_BUDGET,
): Promise<TopicBudgetAnswer> {
  const since = new Date(call.now.getTime() - budget.windowMs);
  try {
    return await db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(hashtext('stratagate.topic-budget'))`.execute(trx);
      const { rows: mine } = await sql<{ n: number }>`
        select count(*)::int as n from control.topic_model_calls where job_id = ${call.jobId}`.execute(
        trx,
      );
      if ((mine[0]?.n ?? 0) > 0) return { granted: true } as const;
      const { rows } = await sql<{ reserved_at: Date | string }>`
        select reserved_at from control.topic_model_calls
        where reserved_at > ${since.toISOString()}::timestamptz
        order by reserved_at`.execute(trx);
      if (rows.length >= budget.calls) {
        const oldest = new Date(rows[0]!.reserved_at);
        return {
          granted: false,
          retryAt: new Date(oldest.getTime() + budget.windowMs),
        } as const;
      }
      await sql`
        insert into control.topic_model_calls (job_id, tenant_id, space_id, reserved_at)
        values (${call.jobId}, ${call.tenantId}, ${call.spaceId}, ${call.now.toISOString()}::timestamptz)`.execute(
        trx,
      );
      // What left the window long ago is no longer needed to decide anything.
      await sql`
        delete from control.topic_model_calls
        where reserved_at < ${new Date(since.getTime() - budget.windowMs).toISOString()}::timestamptz`.execute(
        trx,
      );
      return { granted: true } as const;
    });
  } catch {
    return { granted: false, retryAt: new Date(call.now.getTime() + budget.windowMs) };
  }
}
