import { randomUUID } from 'node:crypto';
import { afterAll, it } from 'vitest';
import type { Database } from '@stratagate/store';
import { openTestDatabase } from '@stratagate/store/testing';
import type { NewRecord, RecordMetadata, SpaceRef, StoredRecord } from '@stratagate/domain';
import type { LogCapabilities, MessageLog } from '../message-log.ts';

/** What every case receives: the log of the current test and the suite's settings. */
export interface ContractContext {
  log(): MessageLog;
  readonly capabilities: LogCapabilities;
  /** How long a committed append may take to show up in readAll (horizons, consumer lag). */
  readonly visibilityTimeoutMs: number;
}

let spaceCounter = 0;

/** A space no other test touches, so cases stay independent even on a shared log. */
export function freshSpace(tenantId = `tenant-${randomUUID().slice(0, 8)}`): SpaceRef {
  spaceCounter += 1;
  return { tenantId, spaceId: `space-${spaceCounter}-${randomUUID().slice(0, 8)}` };
}

export function makeRecord(
  space: SpaceRef,
  data: unknown = {},
  metadata: Partial<RecordMetadata> = {},
  type = 'TestRecorded',
): NewRecord {
  return {
    type,
    data,
    metadata: {
      recordId: randomUUID(),
      schemaVersion: 1,
      tenantId: space.tenantId,
      spaceId: space.spaceId,
      occurredAt: '2024-01-01T00:00:00Z',
      ...metadata,
    },
  };
}

/** `count` records numbered from `from`, data `{ n }`, for order assertions. */
export const numbered = (space: SpaceRef, count: number, from = 1): NewRecord[] =>
  Array.from({ length: count }, (_, i) => makeRecord(space, { n: from + i }));

export const dataOf = (records: readonly StoredRecord[]): unknown[] => records.map((r) => r.data);

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Tails readAll from `after` like a consumer that checkpoints the last position it saw, until it
 * has `count` records or the timeout passes (the assertion that follows then says what is missing).
 * readAll may lag a committed append, so cases never expect it to be immediate.
 */
export async function tailUntil(
  log: MessageLog,
  count: number,
  timeoutMs: number,
  after = 0,
): Promise<StoredRecord[]> {
  const seen: StoredRecord[] = [];
  let checkpoint = after;
  const deadline = Date.now() + timeoutMs;
  while (seen.length < count && Date.now() < deadline) {
    const page = await log.readAll(checkpoint, 100);
    const last = page.at(-1);
    if (!last) {
      await sleep(10);
      continue;
    }
    seen.push(...page);
    checkpoint = last.position;
  }
  return seen;
}

export const isStrictlyIncreasing = (values: readonly number[]): boolean =>
  values.every((v, i) => i === 0 || v > (values[i - 1] ?? Number.NEGATIVE_INFINITY));

export const range = (from: number, to: number): number[] =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

/**
 * Registers a case that needs some capabilities. When the adapter declares one false, the case is
 * reported as skipped and its name says why: a limitation is visible, never a silent pass.
 */
export function itRequires(
  capabilities: LogCapabilities,
  needed: readonly (keyof LogCapabilities)[],
  title: string,
  fn: () => Promise<void>,
): void {
  const missing = needed.filter((c) => !capabilities[c]);
  const reason = missing.map((c) => `${c}=false`).join(', ');
  const name = missing.length > 0 ? `${title} [skipped: adapter declares ${reason}]` : title;
  it.skipIf(missing.length > 0)(name, fn);
}

/**
 * One database per test file (PGlite in memory, or a fresh database on DATABASE_URL's server),
 * opened on first use and closed after the file's cases.
 */
export function sharedTestDatabase(label: string): () => Promise<Database> {
  let database: Promise<Database> | undefined;
  afterAll(async () => {
    const db = await database;
    if (!db) return;
    // pg's pool.end() resolves before its sockets have closed; the forced drop of the database
    // right after would kill them mid-goodbye. Destroying first and waiting avoids it.
    await db.db.destroy();
    await sleep(250);
    await db.close();
  });
  return () => (database ??= openTestDatabase(label));
}
