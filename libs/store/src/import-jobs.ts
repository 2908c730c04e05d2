import { sql } from 'kysely';
import { migrateUnderLock, type AnyDb } from './database.ts';

/**
 * External memory import jobs (MM-IMP-7, ADR 0047), in the read models' database beside the
 * log, not in it: a preview writes nothing to the memory, yet it is durable, so an interrupted
 * analysis resumes where it stopped and a preview can be confirmed and committed later. Until the
 * commit a row holds the text and the candidates; the commit moves them into the log and the row
 * keeps ids and counts only, so erasing the memory leaves nothing of it here.
 */
export async function migrateImportJobs(db: AnyDb): Promise<void> {
  await migrateUnderLock(db, 'stratagate.control', 'import-jobs', async (trx) => {
    await sql`create schema if not exists control`.execute(trx);
    await sql`create table if not exists control.import_jobs (
      tenant_id text not null,
      space_id text not null,
      import_id text not null,
      state text not null,
      requested_by text not null,
      text_sha256 text not null,
      recovered boolean not null,
      top_k int not null,
      base_revision bigint not null default 0,
      text text,
      document jsonb,
      items jsonb not null,
      error text,
      result jsonb,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      primary key (tenant_id, space_id, import_id)
    )`.execute(trx);
  });
}

export type ImportJobState =
  'processing' | 'awaiting_confirmation' | 'ready' | 'committed' | 'undone' | 'failed';

export interface ImportJobRow {
  tenant_id: string;
  space_id: string;
  import_id: string;
  state: ImportJobState;
  requested_by: string;
  text_sha256: string;
  recovered: boolean;
  top_k: number;
  base_revision: number;
  text: string | null;
  document: unknown;
  /** One entry per candidate, null until it is decided. */
  items: unknown[];
  error: string | null;
  result: unknown;
  created_at: Date;
  updated_at: Date;
}

type Space = { tenantId: string; spaceId: string };

export async function insertImportJob(
  db: AnyDb,
  space: Space,
  job: {
    importId: string;
    requestedBy: string;
    textSha256: string;
    recovered: boolean;
    topK: number;
    text: string;
    document: unknown;
    candidates: number;
    now: Date;
  },
): Promise<void> {
  await sql`
    insert into control.import_jobs (tenant_id, space_id, import_id, state, requested_by,
      text_sha256, recovered, top_k, text, document, items, created_at, updated_at)
    values (${space.tenantId}, ${space.spaceId}, ${job.importId}, 'processing', ${job.requestedBy},
      ${job.textSha256}, ${job.recovered}, ${job.topK}, ${job.text},
      ${JSON.stringify(job.document)}::jsonb,
      ${JSON.stringify(Array.from({ length: job.candidates }, () => null))}::jsonb,
      ${job.now}, ${job.now})
    on conflict do nothing`.execute(db);
}

export async function getImportJob(
  db: AnyDb,
  space: Space,
  importId: string,
): Promise<ImportJobRow | null> {
  const { rows } = await sql<ImportJobRow>`
    select * from control.import_jobs
    where tenant_id = ${space.tenantId} and space_id = ${space.spaceId}
      and import_id = ${importId}`.execute(db);
  const row = rows[0];
  return row ? { ...row, base_revision: Number(row.base_revision) } : null;
}

/** Completes one candidate: its decision is written once, whoever gets there first. */
export async function completeImportItem(
  db: AnyDb,
  space: Space,
  importId: string,
  index: number,
  item: unknown,
  now: Date,
): Promise<void> {
  await sql`
    update control.import_jobs
    set items = jsonb_set(items, ${`{${index}}`}::text[], ${JSON.stringify(item)}::jsonb),
      updated_at = ${now}
    where tenant_id = ${space.tenantId} and space_id = ${space.spaceId}
      and import_id = ${importId} and items -> ${index}::int = 'null'::jsonb`.execute(db);
}

/** Replaces decided items (a user's confirmation), the state with them. */
export async function updateImportJob(
  db: AnyDb,
  space: Space,
  importId: string,
  set: {
    state?: ImportJobState;
    baseRevision?: number;
    items?: unknown[];
    error?: string | null;
    result?: unknown;
    /** Drops the text and the candidates (after the commit put them into the log). */
    dropContent?: boolean;
    now: Date;
  },
): Promise<void> {
  await sql`
    update control.import_jobs set
      state = coalesce(${set.state ?? null}, state),
      base_revision = coalesce(${set.baseRevision ?? null}::bigint, base_revision),
      items = coalesce(${set.items ? JSON.stringify(set.items) : null}::jsonb, items),
      error = ${set.error === undefined ? sql`error` : set.error},
      result = coalesce(${set.result === undefined ? null : JSON.stringify(set.result)}::jsonb, result),
      text = ${set.dropContent ? null : sql`text`},
      document = ${set.dropContent ? null : sql`document`},
      updated_at = ${set.now}
    where tenant_id = ${space.tenantId} and space_id = ${space.spaceId}
      and import_id = ${importId}`.execute(db);
}

/** An erased space keeps no import job (ADR 0046). */
export async function deleteImportJobs(db: AnyDb, space: Space): Promise<void> {
  await sql`
    delete from control.import_jobs
    where tenant_id = ${space.tenantId} and space_id = ${space.spaceId}`
    .execute(db)
    .catch((error: { code?: string }) => {
      if (error.code !== '42P01') throw error;
    });
}
