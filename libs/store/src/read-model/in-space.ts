import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool } from 'kysely';
import type { AnyDb } from '../database.ts';
import type { ReadModelTables } from './tables.ts';

/** One tenant's space: every read-model row belongs to exactly one (MM-SPACE-1). */
export interface SpaceScope {
  tenantId: string;
  spaceId: string;
}

/**
 * The filter that confines a read-model query to one space: `.where(inSpace(space))`, or
 * `.where(inSpace(space, 'm'))` for the table aliased `m` in a join. Every read-model table keys
 * its rows by `(tenant_id, space_id, …)`, so this is the one place the pair is written out.
 */
export function inSpace(space: SpaceScope, table?: string) {
  const column = (name: string) => sql.ref(table ? `${table}.${name}` : name);
  return <DB, TB extends keyof DB>(eb: ExpressionBuilder<DB, TB>): Expression<SqlBool> =>
    eb.and([
      eb(column('tenant_id'), '=', space.tenantId),
      eb(column('space_id'), '=', space.spaceId),
    ]);
}

/**
 * The join condition of two read-model tables of the same space: `tenant_id` and `space_id`
 * equal, plus the key columns given (`[['t.turn_id', 'm.turn_id']]`).
 */
export function sameSpace(left: string, right: string, ...keys: [string, string][]) {
  const pairs: [string, string][] = [
    [`${left}.tenant_id`, `${right}.tenant_id`],
    [`${left}.space_id`, `${right}.space_id`],
    ...keys,
  ];
  return <DB, TB extends keyof DB>(eb: ExpressionBuilder<DB, TB>): Expression<SqlBool> =>
    eb.and(pairs.map(([a, b]) => eb(sql.ref(a), '=', sql.ref(b))));
}

/** The read model of `schema` as a typed handle: what every read-model query function takes. */
export function readModelDb(db: AnyDb, schema: string): Kysely<ReadModelTables> {
  return (db as Kysely<ReadModelTables>).withSchema(schema);
}
