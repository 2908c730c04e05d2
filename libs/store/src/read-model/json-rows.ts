import { sql } from 'kysely';
import type { AnyDb } from '../database.ts';

/**
 * Rows sent as one jsonb parameter and turned back into rows by `jsonb_to_recordset`.
 *
 * A multi-row `insert … values (…), (…)` binds one parameter per cell, and its text changes with
 * the number of rows. Each batch size is then a statement of its own: parsed and planned again,
 * and held as one more entry of the prepared-statement cache (ADRs 0020 and 0021). With one
 * jsonb parameter the text is the same for every batch, so it is prepared once. Scratch runs of
 * 60 batches of 500–1,000 message rows: PGlite 1.81–1.89 s against 2.40–2.56 s with `values`, a
 * Postgres server 1.24–1.27 s against 2.09–2.14 s. In a whole projection the gain is smaller: a
 * rebuild of 13,131 records on PGlite took 12.9–13.5 s against 14.1–14.8 s, and on a Postgres
 * server it was within the noise.
 */

/** SQL type of every column of `Row`, in the order the columns are written. */
export type ColumnTypes<Row> = { readonly [K in keyof Row & string]-?: string };

/**
 * Inserts `rows` into `schema.table` in one statement whose text does not depend on how many
 * rows there are; a row whose key exists already is left as it is (`on conflict do nothing`).
 * The types are SQL and are written into the statement as they are: only constants of the code
 * may be passed. A jsonb column takes the row's value as it is (an array or object, not its JSON
 * text).
 */
export async function insertJsonRows<Row extends object>(
  db: AnyDb,
  schema: string,
  table: string,
  types: ColumnTypes<Row>,
  rows: readonly Row[],
): Promise<void> {
  if (rows.length === 0) return;
  const columns = sql.join(Object.keys(types).map((name) => sql.id(name)));
  const typed = sql.join(
    Object.entries<string>(types).map(([name, type]) => sql`${sql.id(name)} ${sql.raw(type)}`),
  );
  await sql`
    insert into ${sql.id(schema, table)} (${columns})
    select ${columns} from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(${typed})
    on conflict do nothing`.execute(db);
}
