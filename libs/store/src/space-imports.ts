import { sql } from 'kysely';
import { migrateUnderLock, type AnyDb } from './database.ts';

/**
 * Spaces a space import is writing (ADR 0045), in the read models' database, where the
 * consolidator looks: while a space is listed, its derivation jobs wait. An import appends a
 * space's records in several appends, and a block sealed by one of them may get its recorded
 * summary only in the next; the consolidator must not call a model for it meanwhile. The row stays
 * when an import is interrupted, so the space keeps waiting until the import is resumed.
 */
export async function migrateSpaceImports(db: AnyDb): Promise<void> {
  await migrateUnderLock(db, 'stratagate.control', 'space-imports', async (trx) => {
    await sql`create schema if not exists control`.execute(trx);
    await sql`create table if not exists control.space_imports (
      tenant_id text not null,
      space_id text not null,
      records bigint not null,
      started_at timestamptz not null default now(),
      primary key (tenant_id, space_id)
    )`.execute(trx);
  });
}

export interface ImportingSpace {
  tenantId: string;
  spaceId: string;
}

export async function beginSpaceImport(
  db: AnyDb,
  space: ImportingSpace,
  records: number,
): Promise<void> {
  await sql`
    insert into control.space_imports (tenant_id, space_id, records)
    values (${space.tenantId}, ${space.spaceId}, ${records})
    on conflict (tenant_id, space_id) do update set records = excluded.records`.execute(db);
}

export async function endSpaceImport(db: AnyDb, space: ImportingSpace): Promise<void> {
  await sql`
    delete from control.space_imports
    where tenant_id = ${space.tenantId} and space_id = ${space.spaceId}`.execute(db);
}

/**
 * `tenant/space` keys of the spaces being imported. Empty while the table does not exist (a
 * database no import has touched, a test that set up its own read model).
 */
export async function importingSpaces(db: AnyDb): Promise<Set<string>> {
  const { rows } = await sql<{ key: string }>`
    select tenant_id || '/' || space_id as key from control.space_imports`
    .execute(db)
    .catch((error: { code?: string }) => {
      if (error.code === '42P01') return { rows: [] };
      throw error;
    });
  return new Set(rows.map((r) => r.key));
}
