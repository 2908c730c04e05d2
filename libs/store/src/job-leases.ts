import { sql } from 'kysely';
import { migrateUnderLock, type AnyDb } from './database.ts';

/**
 * Leases on consolidation work (ADR 0042): before a consolidator runs a unit's jobs (a space's,
 * or the profiles'), it claims the unit for `ttlMs`, renews the claim while the jobs run, and
 * gives it up when they are done. A process that dies holds its units until the lease expires;
 * then any other consolidator claims them. Time is the database's clock, the one clock every
 * process shares.
 *
 * Each claim takes the next `token` of its unit. The row outlives its holders (a release only
 * ends the lease), so the token never goes back: a holder whose renewal finds another token has
 * lost the unit, and drops what it was about to append.
 */
export async function migrateJobLeases(db: AnyDb): Promise<void> {
  await migrateUnderLock(db, 'stratagate.control', 'job-leases', async (trx) => {
    await sql`create schema if not exists control`.execute(trx);
    await sql`create table if not exists control.job_leases (
      unit text primary key,
      holder text not null,
      token bigint not null,
      expires_at timestamptz not null
    )`.execute(trx);
  });
}

export interface JobLease {
  unit: string;
  holder: string;
  token: number;
}

/**
 * Claims `unit` for `holder` if nobody holds it: no row yet, or the lease expired (or was
 * released). One statement: of two consolidators claiming at once, the second waits for the
 * first's row lock, then finds the lease unexpired and gets nothing. Null when held by another.
 */
export async function claimJobLease(
  db: AnyDb,
  unit: string,
  holder: string,
  ttlMs: number,
): Promise<JobLease | null> {
  const { rows } = await sql<{ token: string | number }>`
    insert into control.job_leases as l (unit, holder, token, expires_at)
    values (${unit}, ${holder}, 1, clock_timestamp() + ${ttlMs} * interval '1 millisecond')
    on conflict (unit) do update
      set holder = excluded.holder, token = l.token + 1, expires_at = excluded.expires_at
      where l.expires_at <= clock_timestamp()
    returning token`.execute(db);
  const row = rows[0];
  return row ? { unit, holder, token: Number(row.token) } : null;
}

/**
 * Extends a lease this holder still has, by `ttlMs` from now. False once it is gone: it expired
 * and another consolidator claimed the unit (the token moved on). A lease that expired and was
 * claimed by nobody is taken back: nobody else can have started on the unit meanwhile.
 */
export async function renewJobLease(db: AnyDb, lease: JobLease, ttlMs: number): Promise<boolean> {
  const { rows } = await sql`
    update control.job_leases
    set expires_at = clock_timestamp() + ${ttlMs} * interval '1 millisecond'
    where unit = ${lease.unit} and token = ${lease.token}
    returning 1 as held`.execute(db);
  return rows.length > 0;
}

/** Ends a lease this holder still has, so the unit can be claimed at once; its token stays. */
export async function releaseJobLease(db: AnyDb, lease: JobLease): Promise<void> {
  await sql`
    update control.job_leases set expires_at = '-infinity'
    where unit = ${lease.unit} and token = ${lease.token}`.execute(db);
}
