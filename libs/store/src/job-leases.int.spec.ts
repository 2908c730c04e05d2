import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from './database.ts';
import {
  claimJobLease,
  migrateJobLeases,
  releaseJobLease,
  renewJobLease,
  type JobLease,
} from './job-leases.ts';
import { describeBackend, openTestDatabase } from './test-database.ts';

/* ADR 0042: consolidators claim a unit of work with a lease before running its jobs. */
let database: Database;
const HOUR = 3_600_000;

describe(`consolidation leases (${describeBackend()})`, () => {
  beforeAll(async () => {
    database = await openTestDatabase('job_leases');
    await migrateJobLeases(database.db);
    // Migrating again (every process does at start) changes nothing.
    await migrateJobLeases(database.db);
  });
  afterAll(async () => {
    await database?.close();
  });

  it('grants a free unit to one holder; others get nothing while it lasts', async () => {
    const a = await claimJobLease(database.db, 'space:t/held', 'a', HOUR);
    expect(a).toEqual({ unit: 'space:t/held', holder: 'a', token: 1 });
    expect(await claimJobLease(database.db, 'space:t/held', 'b', HOUR)).toBeNull();
    // Not even the holder claims it twice: a second claim would be a second runner.
    expect(await claimJobLease(database.db, 'space:t/held', 'a', HOUR)).toBeNull();
    expect(await renewJobLease(database.db, a!, HOUR)).toBe(true);
    // Other units are free.
    expect(await claimJobLease(database.db, 'space:t/other', 'b', HOUR)).toMatchObject({
      token: 1,
    });
  });

  it('of many claims at once, exactly one wins', async () => {
    const claims = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        claimJobLease(database.db, 'space:t/race', `p${i}`, HOUR),
      ),
    );
    expect(claims.filter((c) => c !== null)).toHaveLength(1);
  });

  it('recovers an expired lease; the old holder is fenced off by the token', async () => {
    // A lease of 0 ms has expired when the next statement runs: a killed holder, long after.
    const dead = (await claimJobLease(database.db, 'space:t/expiring', 'dead', 0))!;
    const next = await claimJobLease(database.db, 'space:t/expiring', 'alive', HOUR);
    expect(next).toEqual({ unit: 'space:t/expiring', holder: 'alive', token: dead.token + 1 });
    // The late holder can neither renew nor release what is no longer its lease.
    expect(await renewJobLease(database.db, dead, HOUR)).toBe(false);
    await releaseJobLease(database.db, dead);
    expect(await claimJobLease(database.db, 'space:t/expiring', 'third', HOUR)).toBeNull();
    expect(await renewJobLease(database.db, next!, HOUR)).toBe(true);
  });

  it('takes back its own expired lease when nobody claimed it meanwhile', async () => {
    const lease = (await claimJobLease(database.db, 'space:t/lapsed', 'a', 0))!;
    expect(await renewJobLease(database.db, lease, HOUR)).toBe(true);
    expect(await claimJobLease(database.db, 'space:t/lapsed', 'b', HOUR)).toBeNull();
  });

  it('a release frees the unit at once, and tokens keep growing', async () => {
    const tokens: number[] = [];
    let lease: JobLease | null = null;
    for (const holder of ['a', 'b', 'a', 'c']) {
      if (lease) await releaseJobLease(database.db, lease);
      lease = await claimJobLease(database.db, 'space:t/released', holder, HOUR);
      expect(lease).not.toBeNull();
      tokens.push(lease!.token);
    }
    expect(tokens).toEqual([1, 2, 3, 4]);
  });
});
