import { sql } from 'kysely';
import type { AnyDb } from '../database.ts';
import { migrateSearchIndex } from '../search/migrate.ts';
import { DUMP_OMITTED_COLUMNS, SEARCH_INDEX_TABLES } from '../search/tables.ts';
import { migrateProfilesReadModel, PROFILE_READ_MODEL_TABLES } from './profiles.tables.ts';
import { migrateTopicsReadModel, TOPIC_READ_MODEL_TABLES } from './topics.tables.ts';

/**
 * The read model lives in one Postgres schema per projection version (e.g. `rm_v1`), so a rebuild
 * can build the next version beside the live one and reads switch by schema name.
 * Rows hold no clock values of their own: a rebuild from position 0 yields identical tables.
 */
export const READ_MODEL_VERSION = 1;
export const DEFAULT_READ_MODEL_SCHEMA = `rm_v${READ_MODEL_VERSION}`;

export function assertSchemaName(schema: string): void {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`invalid schema name: ${schema}`);
}

/**
 * Every memory-event id a graph node row cites, as one jsonb array: its own sources, its name's
 * sources and the sources of its aliases and tags. Indexed (GIN) by that exact expression.
 */
export const GRAPH_NODE_CITED_EVENTS =
  "source_event_ids || name_source_event_ids || jsonb_path_query_array(aliases || tags, '$[*].sourceEventIds[*]')";

export async function migrateReadModel(db: AnyDb, schema: string): Promise<void> {
  assertSchemaName(schema);
  const s = sql.id(schema);
  const statements = [
    sql`create schema if not exists ${s}`,
    sql`create table if not exists ${s}.checkpoints (
      name text primary key,
      position bigint not null
    )`,
    sql`create table if not exists ${s}.spaces (
      tenant_id text not null,
      space_id text not null,
      block_size int not null,
      decay_lambda double precision not null,
      turn_counter int not null default 0,
      block_count int not null default 0,
      applied_position bigint not null,
      primary key (tenant_id, space_id)
    )`,
    sql`create table if not exists ${s}.threads (
      tenant_id text not null,
      space_id text not null,
      thread_id text not null,
      turn_count int not null default 0,
      ready_count int not null default 0,
      applied_position bigint not null,
      primary key (tenant_id, space_id, thread_id)
    )`,
    sql`create table if not exists ${s}.turns (
      tenant_id text not null,
      space_id text not null,
      turn_id text not null,
      thread_id text not null,
      space_turn int not null,
      thread_turn int not null,
      occurred_at text not null,
      block_id text,
      position bigint not null,
      applied_position bigint not null,
      primary key (tenant_id, space_id, turn_id)
    )`,
    sql`create index if not exists turns_open_tail on ${s}.turns (tenant_id, space_id, thread_id, thread_turn)`,
    sql`create index if not exists turns_by_block on ${s}.turns (tenant_id, space_id, block_id)`,
    sql`create table if not exists ${s}.messages (
      tenant_id text not null,
      space_id text not null,
      message_id text not null,
      turn_id text not null,
      thread_id text not null,
      seq int not null,
      role text not null,
      name text,
      content text not null,
      tool_calls jsonb not null,
      occurred_at text not null,
      space_turn int not null,
      thread_turn int not null,
      primary key (tenant_id, space_id, message_id)
    )`,
    sql`create index if not exists messages_by_turn on ${s}.messages (tenant_id, space_id, turn_id, seq)`,
    // The message before a block, indexed as raw-search context of the block's first message.
    sql`create index if not exists messages_by_thread on ${s}.messages
      (tenant_id, space_id, thread_id, thread_turn desc, seq desc)`,
    sql`create table if not exists ${s}.blocks (
      tenant_id text not null,
      space_id text not null,
      block_id text not null,
      thread_id text not null,
      sequence int not null,
      turn_from int not null,
      turn_to int not null,
      space_turn_to int not null,
      sealed_at text not null,
      status text not null,
      l3 text not null,
      l4 text not null,
      l5 text not null,
      tokens_l3 int not null,
      tokens_l4 int not null,
      tokens_l5 int not null,
      title text,
      tags jsonb,
      summary text,
      key_points jsonb,
      should_extract boolean,
      model jsonb,
      summary_status text not null,
      summary_attempts int not null default 0,
      summary_cycle int not null default 0,
      summary_next_retry_at timestamptz,
      summary_last_error text,
      extraction_status text not null,
      ready_position int,
      anchor_position int,
      anchor_level int,
      last_lifted_at text,
      last_lifted_by text,
      applied_position bigint not null,
      primary key (tenant_id, space_id, block_id)
    )`,
    sql`alter table ${s}.blocks add column if not exists extraction_attempts int not null default 0`,
    sql`alter table ${s}.blocks add column if not exists extraction_cycle int not null default 0`,
    sql`alter table ${s}.blocks add column if not exists extraction_next_retry_at timestamptz`,
    sql`alter table ${s}.blocks add column if not exists extraction_last_error text`,
    sql`alter table ${s}.blocks add column if not exists event_count int not null default 0`,
    sql`create table if not exists ${s}.memory_events (
      tenant_id text not null,
      space_id text not null,
      event_id text not null,
      source_block_id text not null,
      thread_id text,
      title text not null,
      summary text not null,
      tags jsonb not null,
      quotes jsonb not null,
      source_message_ids jsonb not null,
      scope text not null,
      criticality text not null,
      event_type text not null,
      temporal jsonb not null,
      mentioned_at text,
      happened_start text,
      happened_end text,
      status text not null,
      superseded_by text,
      mention_count int not null default 1,
      last_adopted_turn int not null,
      last_retrieved_at text,
      pinned boolean not null default false,
      forced_cap double precision,
      catalog_hints jsonb not null,
      extractor_version int,
      formed_turn int not null,
      block_sequence int not null,
      created_at text not null,
      updated_at text not null,
      record_position bigint not null,
      applied_position bigint not null,
      primary key (tenant_id, space_id, event_id)
    )`,
    sql`create index if not exists memory_events_by_block on ${s}.memory_events (tenant_id, space_id, source_block_id)`,
    sql`create index if not exists memory_events_recent on ${s}.memory_events
      (tenant_id, space_id, block_sequence desc, formed_turn desc)`,
    sql`alter table ${s}.blocks add column if not exists graph_status text not null default 'none'`,
    sql`alter table ${s}.blocks add column if not exists graph_attempts int not null default 0`,
    sql`alter table ${s}.blocks add column if not exists graph_cycle int not null default 0`,
    sql`alter table ${s}.blocks add column if not exists graph_next_retry_at timestamptz`,
    sql`alter table ${s}.blocks add column if not exists graph_last_error text`,
    sql`alter table ${s}.memory_events add column if not exists participant_node_ids jsonb not null default '[]'`,
    // MM-RET-3 pools: 'extracted' by consolidation, 'agent' from remember (MM-REM).
    sql`alter table ${s}.memory_events add column if not exists pool text not null default 'extracted'`,
    // MM-EVT-10: conflicts linked from the other side (remember links both ways).
    sql`alter table ${s}.memory_events add column if not exists conflicts_with jsonb not null default '[]'`,
    // Agent events citing open-tail messages have no source block (MM-EVT-2).
    sql`alter table ${s}.memory_events alter column source_block_id drop not null`,
    // Which events a record just changed (graph-node re-indexing looks them up by position).
    sql`create index if not exists memory_events_by_applied on ${s}.memory_events
      (tenant_id, space_id, applied_position)`,
    sql`create table if not exists ${s}.graph_nodes (
      tenant_id text not null,
      space_id text not null,
      node_id text not null,
      name text not null,
      normalised_name text not null,
      type text not null,
      aliases jsonb not null,
      tags jsonb not null,
      status text not null,
      confidence double precision not null,
      source_event_ids jsonb not null,
      name_source_event_ids jsonb not null,
      created_position bigint not null,
      applied_position bigint not null,
      primary key (tenant_id, space_id, node_id)
    )`,
    sql`create index if not exists graph_nodes_by_name on ${s}.graph_nodes (tenant_id, space_id, type, normalised_name)`,
    sql`create table if not exists ${s}.graph_facts (
      tenant_id text not null,
      space_id text not null,
      fact_id text not null,
      node_id text not null,
      key text not null,
      value jsonb not null,
      status text not null,
      confidence double precision not null,
      source_event_ids jsonb not null,
      valid_from text,
      valid_to text,
      superseded_by text,
      applied_position bigint not null,
      primary key (tenant_id, space_id, fact_id)
    )`,
    sql`create index if not exists graph_facts_by_node on ${s}.graph_facts (tenant_id, space_id, node_id)`,
    sql`create table if not exists ${s}.graph_edges (
      tenant_id text not null,
      space_id text not null,
      edge_id text not null,
      from_id text not null,
      to_id text not null,
      relation text not null,
      status text not null,
      confidence double precision not null,
      source_event_ids jsonb not null,
      valid_from text,
      valid_to text,
      superseded_by text,
      applied_position bigint not null,
      primary key (tenant_id, space_id, edge_id)
    )`,
    sql`create index if not exists graph_edges_by_from on ${s}.graph_edges (tenant_id, space_id, from_id)`,
    sql`create index if not exists graph_edges_by_to on ${s}.graph_edges (tenant_id, space_id, to_id)`,
    sql`create table if not exists ${s}.evidence_batches (
      tenant_id text not null,
      space_id text not null,
      batch_id text not null,
      thread_id text not null,
      operation text not null,
      query text not null,
      refs jsonb not null,
      status text not null,
      verdict text,
      accepted_refs jsonb not null default '[]',
      assessment jsonb,
      receipt_id text,
      opened_at text not null,
      opened_position bigint not null,
      applied_position bigint not null,
      primary key (tenant_id, space_id, batch_id)
    )`,
    sql`create index if not exists evidence_batches_open on ${s}.evidence_batches (tenant_id, space_id, thread_id, status)`,
    sql`create index if not exists blocks_by_thread on ${s}.blocks (tenant_id, space_id, thread_id, turn_from)`,
    // Which graph rows cite an event (graph search re-indexing after an event's status changed,
    // MM-RET-5): GIN indexes answer `?|` without reading the space's whole graph. The node index
    // is over every id a node cites (own sources, name sources, alias and tag sources); queries
    // use the same expression (GRAPH_NODE_CITED_EVENTS).
    sql`create index if not exists graph_nodes_by_cited_event on ${s}.graph_nodes
      using gin ((${sql.raw(GRAPH_NODE_CITED_EVENTS)}))`,
    // Recall's standing events (pinned or safety) without reading every event of the space.
    sql`create index if not exists memory_events_standing on ${s}.memory_events (tenant_id, space_id)
      where pinned or criticality = 'safety'`,
    sql`create index if not exists graph_facts_by_source_event on ${s}.graph_facts
      using gin (source_event_ids)`,
    sql`create index if not exists graph_edges_by_source_event on ${s}.graph_edges
      using gin (source_event_ids)`,
    sql`create index if not exists blocks_due_summary on ${s}.blocks (summary_status, summary_next_retry_at)
      where summary_status in ('pending', 'failed')`,
    // Sealed blocks whose messages are not yet in the raw-search index (ADR 0014): the seal's
    // transaction queues the block, the projector's indexing lane indexes and deletes it in one
    // transaction of its own. `position`/`space_version` are the seal's, for the status.
    sql`create table if not exists ${s}.message_index_queue (
      tenant_id text not null,
      space_id text not null,
      block_id text not null,
      position bigint not null,
      space_version bigint not null,
      primary key (tenant_id, space_id, block_id)
    )`,
    sql`create index if not exists message_index_queue_by_position on ${s}.message_index_queue
      (position)`,
  ];
  for (const statement of statements) await statement.execute(db);
  await migrateSearchIndex(db, schema);
  await migrateProfilesReadModel(db, schema);
  await migrateTopicsReadModel(db, schema);
}

/** Tables in dump order, with the columns that identify a row. Used by rebuild comparisons. */
export const READ_MODEL_TABLES: Record<string, string[]> = {
  spaces: ['tenant_id', 'space_id'],
  threads: ['tenant_id', 'space_id', 'thread_id'],
  turns: ['tenant_id', 'space_id', 'turn_id'],
  messages: ['tenant_id', 'space_id', 'message_id'],
  blocks: ['tenant_id', 'space_id', 'block_id'],
  memory_events: ['tenant_id', 'space_id', 'event_id'],
  graph_nodes: ['tenant_id', 'space_id', 'node_id'],
  graph_facts: ['tenant_id', 'space_id', 'fact_id'],
  graph_edges: ['tenant_id', 'space_id', 'edge_id'],
  evidence_batches: ['tenant_id', 'space_id', 'batch_id'],
  message_index_queue: ['tenant_id', 'space_id', 'block_id'],
  ...SEARCH_INDEX_TABLES,
  ...PROFILE_READ_MODEL_TABLES,
  ...TOPIC_READ_MODEL_TABLES,
};

/** Every row of every read-model table, ordered by key: equal dumps mean equal read models. */
export async function dumpReadModel(db: AnyDb, schema: string): Promise<Record<string, unknown[]>> {
  assertSchemaName(schema);
  const out: Record<string, unknown[]> = {};
  for (const [table, keys] of Object.entries(READ_MODEL_TABLES)) {
    let query = db.withSchema(schema).selectFrom(table).selectAll();
    for (const key of keys) query = query.orderBy(sql.ref(key));
    const rows = await query.execute();
    out[table] = rows.map((r) => {
      const rest: Record<string, unknown> = { ...r };
      for (const column of DUMP_OMITTED_COLUMNS) delete rest[column];
      return rest;
    });
  }
  return out;
}
