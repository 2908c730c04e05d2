import { sql } from 'kysely';
import type { AnyDb } from '../database.ts';
import type { MemoryEventRow } from './tables.ts';

/*
 * The topic directory's read model (MM-TOP): chapters, which chapter holds each event, and the
 * state of each space's topic job. Projected from TopicsBuilt and the job records; times are the
 * records' own, so a rebuild from position 0 is identical.
 */

/** One chapter, as the last TopicsBuilt that touched it left it. */
export interface TopicRow {
  tenant_id: string;
  space_id: string;
  topic_id: string;
  title: string;
  description: string;
  category: string;
  /**
   * When the newest event of the batch that first built it was recorded: chapters are numbered
   * in this order (MM-TOP-5). Taken from the events, not the clock, so a space and its import
   * agree.
   */
  created_at: string;
  source_event_ids: string[];
  sections: { title: string; sourceEventIds: string[] }[];
  paragraphs: { kind: string; title?: string; text: string; sourceEventIds: string[] }[];
  input_fingerprints: Record<string, string>;
  /** A member was forgotten, archived or changed: text cleared until the job builds it again. */
  pending_update: boolean;
  applied_position: number;
}

/** Which chapter holds an event; an event without a row is unassigned (a fallback, MM-TOP-4). */
export interface TopicMemberRow {
  tenant_id: string;
  space_id: string;
  event_id: string;
  topic_id: string;
}

/** A space's topic job (MM-TOP-8): failures and their backoff; absent while all is well. */
export interface TopicJobRow {
  tenant_id: string;
  space_id: string;
  status: 'idle' | 'failed';
  attempts: number;
  next_retry_at: string | null;
  last_error: string | null;
  /** Manual retries so far: each starts a new cycle of attempts with jobs of their own. */
  cycle: number;
  applied_position: number;
}

/**
 * A visible event no chapter holds (MM-TOP-4), with what the directory orders and counts it by.
 * Kept by the core projection at the end of each batch (ADR 0054), so recall lists the first
 * few and counts the rest without reading every event of the space.
 */
export interface TopicLooseEventRow {
  tenant_id: string;
  space_id: string;
  event_id: string;
  created_at: string;
  criticality: MemoryEventRow['criticality'];
  event_type: string;
}

/** How many loose events a space has of each criticality and type (ADR 0054). */
export interface TopicLooseCountRow {
  tenant_id: string;
  space_id: string;
  criticality: MemoryEventRow['criticality'];
  event_type: string;
  n: number;
}

export interface TopicTables {
  topics: TopicRow;
  topic_members: TopicMemberRow;
  topic_jobs: TopicJobRow;
  topic_loose_events: TopicLooseEventRow;
  topic_loose_counts: TopicLooseCountRow;
}

/** Dump order and row keys of the topic tables (rebuild comparisons). */
export const TOPIC_READ_MODEL_TABLES: Record<string, string[]> = {
  topics: ['tenant_id', 'space_id', 'topic_id'],
  topic_members: ['tenant_id', 'space_id', 'event_id'],
  topic_jobs: ['tenant_id', 'space_id'],
  topic_loose_events: ['tenant_id', 'space_id', 'event_id'],
  topic_loose_counts: ['tenant_id', 'space_id', 'criticality', 'event_type'],
};

export async function migrateTopicsReadModel(db: AnyDb, schema: string): Promise<void> {
  const s = sql.id(schema);
  const statements = [
    sql`create table if not exists ${s}.topics (
      tenant_id text not null,
      space_id text not null,
      topic_id text not null,
      title text not null,
      description text not null,
      category text not null,
      created_at text not null,
      source_event_ids jsonb not null,
      sections jsonb not null,
      paragraphs jsonb not null,
      input_fingerprints jsonb not null,
      pending_update boolean not null,
      applied_position bigint not null,
      primary key (tenant_id, space_id, topic_id)
    )`,
    sql`create table if not exists ${s}.topic_members (
      tenant_id text not null,
      space_id text not null,
      event_id text not null,
      topic_id text not null,
      primary key (tenant_id, space_id, event_id)
    )`,
    sql`create index if not exists topic_members_by_topic on ${s}.topic_members
      (tenant_id, space_id, topic_id)`,
    sql`create table if not exists ${s}.topic_jobs (
      tenant_id text not null,
      space_id text not null,
      status text not null,
      attempts int not null,
      next_retry_at text,
      last_error text,
      applied_position bigint not null,
      primary key (tenant_id, space_id)
    )`,
    sql`alter table ${s}.topic_jobs add column if not exists cycle int not null default 0`,
  ];
  for (const statement of statements) await statement.execute(db);
  await migrateLooseEvents(db, schema);
}

/**
 * The loose-event set and its counts (ADR 0054). Created and filled from the existing rows once,
 * in one statement, when a read model first gets them; the core projection keeps them after.
 */
async function migrateLooseEvents(db: AnyDb, schema: string): Promise<void> {
  // `schema` is checked by assertSchemaName (lowercase letters, digits, underscores) before here.
  const s = schema;
  await sql
    .raw(
      `do $migrate$
      begin
        if to_regclass('${s}.topic_loose_events') is null then
          create table ${s}.topic_loose_events (
            tenant_id text not null,
            space_id text not null,
            event_id text not null,
            created_at text not null,
            criticality text not null,
            event_type text not null,
            primary key (tenant_id, space_id, event_id)
          );
          create index topic_loose_events_by_time on ${s}.topic_loose_events
            (tenant_id, space_id, created_at, event_id);
          create table ${s}.topic_loose_counts (
            tenant_id text not null,
            space_id text not null,
            criticality text not null,
            event_type text not null,
            n bigint not null,
            primary key (tenant_id, space_id, criticality, event_type)
          );
          insert into ${s}.topic_loose_events
            select e.tenant_id, e.space_id, e.event_id, e.created_at, e.criticality, e.event_type
              from ${s}.memory_events e
             where e.status in ('active', 'superseded')
               and not exists (select 1 from ${s}.topic_members m where m.tenant_id = e.tenant_id
                 and m.space_id = e.space_id and m.event_id = e.event_id);
          insert into ${s}.topic_loose_counts
            select tenant_id, space_id, criticality, event_type, count(*)
              from ${s}.topic_loose_events group by 1, 2, 3, 4;
        end if;
      end
      $migrate$`,
    )
    .execute(db);
}
