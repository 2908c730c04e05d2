import { sql, type RawBuilder } from 'kysely';
import { SUPERSEDED_CAP, WEIGHT_FLOORS } from '@stratagate/domain';
import type { AnyDb } from '../database.ts';
import { assertSchemaName } from '../read-model/migrate.ts';
import { SEARCHABLE_EVENT_STATUSES, type SearchSpace } from './tables.ts';

/** Which memory an event belongs to: extracted by consolidation, or recorded by an agent. */
export type EventPool = 'extracted' | 'agent';

/** MM-RET-3 structured filters; every one given must hold. */
export interface EventFilters {
  /** Each must fuzzily match one of the event's participants. */
  participants?: readonly string[];
  /** Fuzzy on event type, title, summary or a tag. */
  eventType?: string;
  /** The event's occurrence [happenedStart, happenedEnd ?? happenedStart] must overlap. */
  happenedFrom?: string;
  happenedTo?: string;
}

export type StructuredOrderBy =
  | { intent: 'first' | 'latest' }
  /** Effective weight (MM-WGT-1) at `currentTurn`, then `updatedAt`, both descending. */
  | { intent: 'weight'; currentTurn: number };

export interface FilteredEventsQuery {
  space: SearchSpace;
  pool: EventPool;
  filters: EventFilters;
  order: StructuredOrderBy;
  limit: number;
  /** Hard scope applied before anything else. */
  eventIds?: readonly string[];
}

/**
 * Ids of the pool's searchable events (active or superseded) meeting every given filter, in
 * MM-RET-4 structured order, at most `limit`. Evaluated by Postgres over the space's rows, so a
 * filter never pulls a whole space into JavaScript.
 *
 * Fuzzy matching mirrors the domain's `fuzzyMatch`: NFKC, lower case, collapsed whitespace, then
 * equality or containment either way, a blank side never matching. The weight order is the
 * MM-WGT-1 formula written in SQL; a spec checks it against the domain's `eventWeight`.
 */
export async function filteredEventIds(db: AnyDb, schema: string, q: FilteredEventsQuery) {
  assertSchemaName(schema);
  const limit = Math.floor(q.limit);
  if (!(limit > 0)) return [];
  if (q.eventIds && q.eventIds.length === 0) return [];
  const events = sql.id(schema, 'memory_events');
  const where: RawBuilder<unknown>[] = [
    sql`e.tenant_id = ${q.space.tenantId}`,
    sql`e.space_id = ${q.space.spaceId}`,
    sql`e.pool = ${q.pool}`,
    sql`e.status = any(${[...SEARCHABLE_EVENT_STATUSES]}::text[])`,
  ];
  if (q.eventIds) where.push(sql`e.event_id = any(${[...q.eventIds]}::text[])`);
  const { participants, eventType, happenedFrom, happenedTo } = q.filters;
  for (const name of participants ?? []) {
    where.push(sql`exists (
      select 1 from jsonb_array_elements_text(e.temporal -> 'participants') as p(value)
      where ${fuzzy(sql`p.value`, name)})`);
  }
  if (eventType !== undefined) {
    where.push(sql`(${fuzzy(sql`e.event_type`, eventType)} or ${fuzzy(sql`e.title`, eventType)}
      or ${fuzzy(sql`e.summary`, eventType)}
      or exists (select 1 from jsonb_array_elements_text(e.tags) as t(value)
                 where ${fuzzy(sql`t.value`, eventType)}))`);
  }
  if (happenedFrom !== undefined || happenedTo !== undefined) {
    const start = instant(sql`e.happened_start`);
    const end = instant(sql`coalesce(e.happened_end, e.happened_start)`);
    where.push(sql`${start} is not null`);
    if (happenedFrom !== undefined) where.push(sql`${end} >= ${happenedFrom}::timestamptz`);
    if (happenedTo !== undefined) where.push(sql`${start} <= ${happenedTo}::timestamptz`);
  }
  const result = await sql<{ event_id: string }>`
    select e.event_id from ${events} e
    where ${sql.join(where, sql` and `)}
    order by ${orderBy(q.order)}
    limit ${limit}
  `.execute(db);
  return result.rows.map((r) => r.event_id);
}

function normalised(expr: RawBuilder<unknown>): RawBuilder<string> {
  return sql`btrim(regexp_replace(lower(normalize(${expr}, NFKC)), '\\s+', ' ', 'g'))`;
}

/** `fuzzyMatch(column, wanted)` in SQL. */
function fuzzy(column: RawBuilder<unknown>, wanted: string): RawBuilder<boolean> {
  const x = normalised(column);
  const y = normalised(sql`${wanted}::text`);
  return sql`(${x} <> '' and ${y} <> '' and (strpos(${x}, ${y}) > 0 or strpos(${y}, ${x}) > 0))`;
}

/** An ISO date or instant as timestamptz; anything else (free text) as null. */
function instant(expr: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`(case when ${expr} ~ '^\\d{4}-\\d{2}-\\d{2}' then (${expr})::timestamptz end)`;
}

/** The MM-WGT-1/2 effective weight of row `e` at `currentTurn`, as `eventWeight` computes it. */
export function weightSql(currentTurn: number): RawBuilder<number> {
  const floor = sql`(case e.criticality
    when 'preference' then ${WEIGHT_FLOORS.preference}::float8
    when 'identity' then ${WEIGHT_FLOORS.identity}::float8
    when 'safety' then ${WEIGHT_FLOORS.safety}::float8
    else ${WEIGHT_FLOORS.routine}::float8 end)`;
  const n = sql`greatest(1, e.mention_count)::float8`;
  const t = sql`greatest(0, ${currentTurn}::int - e.last_adopted_turn)::float8`;
  const decayed = sql`exp(-(0.15 / (1 + 1.5 * ln(${n}))) * ${t})`;
  const floored = sql`greatest(${floor}, ${decayed})`;
  const cap = sql`(case when e.status = 'superseded'
    then least(coalesce(e.forced_cap, ${SUPERSEDED_CAP}::float8), ${SUPERSEDED_CAP}::float8)
    else e.forced_cap end)`;
  return sql`(case when e.status in ('forgotten', 'archived') then 0::float8
    when e.pinned then 1::float8
    else least(${floored}, coalesce(${cap}, 'infinity'::float8)) end)`;
}

function orderBy(order: StructuredOrderBy): RawBuilder<unknown> {
  const chronology = instant(sql`coalesce(e.happened_start, e.mentioned_at, e.created_at)`);
  switch (order.intent) {
    case 'first':
      return sql`${chronology} asc nulls last, e.event_id asc`;
    case 'latest':
      return sql`${chronology} desc nulls last, e.event_id asc`;
    case 'weight':
      return sql`${weightSql(order.currentTurn)} desc, e.updated_at desc, e.event_id asc`;
    default: {
      const never: never = order;
      return never;
    }
  }
}
