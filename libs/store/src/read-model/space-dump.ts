import { sql } from 'kysely';
import type { AnyDb } from '../database.ts';
import { DUMP_OMITTED_COLUMNS } from '../search/tables.ts';
import { assertSchemaName, READ_MODEL_TABLES } from './migrate.ts';

/**
 * Columns that hold a log position. Positions belong to one log (another installation, or the same
 * log with other spaces in between, numbers them differently), so a space's dump shows each as
 * the ordinal of its record among the space's records instead.
 */
export const LOG_POSITION_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  turns: ['position'],
  memory_events: ['record_position'],
  graph_nodes: ['created_position'],
  evidence_batches: ['opened_position'],
  message_index_queue: ['position'],
};

/**
 * Every read-model row of one space, ordered by key, without the space's own ids and with log
 * positions as ordinals (`ordinal(position)`): equal dumps of two spaces mean the same memory,
 * wherever each lives (an exported space and its import, ADR 0045).
 */
export async function dumpSpaceReadModel(
  db: AnyDb,
  schema: string,
  space: { tenantId: string; spaceId: string },
  ordinal: (position: number) => number,
): Promise<Record<string, unknown[]>> {
  assertSchemaName(schema);
  const out: Record<string, unknown[]> = {};
  for (const [table, keys] of Object.entries(READ_MODEL_TABLES)) {
    // A tenant's profiles belong to no space (ADR 0050): a space keeps only its binding.
    if (!keys.includes('space_id')) continue;
    let query = db
      .withSchema(schema)
      .selectFrom(table)
      .selectAll()
      .where(sql.ref('tenant_id'), '=', space.tenantId)
      .where(sql.ref('space_id'), '=', space.spaceId);
    for (const key of keys) query = query.orderBy(sql.ref(key));
    const rows = await query.execute();
    const positions = LOG_POSITION_COLUMNS[table] ?? [];
    out[table] = rows.map((r) => {
      const rest: Record<string, unknown> = { ...r };
      for (const column of [...DUMP_OMITTED_COLUMNS, 'tenant_id', 'space_id']) delete rest[column];
      for (const column of positions) {
        if (rest[column] !== null && rest[column] !== undefined) {
          rest[column] = ordinal(Number(rest[column]));
        }
      }
      return rest;
    });
  }
  return out;
}
