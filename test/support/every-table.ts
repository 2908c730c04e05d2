import { sql } from 'kysely';
import type { AnyDb } from '@stratagate/store';

/**
 * Every row of every table and materialised row source in the database (all schemas but the
 * system's), as one lower-cased text: what a search for a planted string reads. Bytes are shown
 * as text too, so a string stored in a binary column is found as well.
 */
export async function everyTableText(db: AnyDb): Promise<string> {
  return (await tableTexts(db)).map(([name, text]) => `${name}:\n${text}`).join('\n');
}

/** The tables (`schema.table`) whose rows hold `needle` (compared lower-cased). */
export async function tablesHolding(db: AnyDb, needle: string): Promise<string[]> {
  const wanted = needle.toLowerCase();
  return (await tableTexts(db)).filter(([, text]) => text.includes(wanted)).map(([name]) => name);
}

async function tableTexts(db: AnyDb): Promise<[string, string][]> {
  const { rows: tables } = await sql<{ table_schema: string; table_name: string }>`
    select table_schema, table_name from information_schema.tables
    where table_type = 'BASE TABLE'
      and table_schema not in ('pg_catalog', 'information_schema')
      and table_schema not like 'pg_%'
    order by 1, 2`.execute(db);
  const parts: [string, string][] = [];
  for (const { table_schema, table_name } of tables) {
    const { rows } = await sql<Record<string, unknown>>`
      select * from ${sql.id(table_schema, table_name)}`.execute(db);
    parts.push([
      `${table_schema}.${table_name}`,
      JSON.stringify(rows, (_k, v: unknown) => {
        if (v instanceof Uint8Array) return Buffer.from(v).toString('latin1');
        // A Buffer has turned itself into { type, data } before a replacer sees it.
        const b = v as { type?: unknown; data?: unknown } | null;
        if (b?.type === 'Buffer' && Array.isArray(b.data)) {
          return Buffer.from(b.data as number[]).toString('latin1');
        }
        return v;
      }).toLowerCase(),
    ]);
  }
  return parts;
}
