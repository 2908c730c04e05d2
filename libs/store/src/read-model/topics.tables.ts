import { sql } from 'kysely';
import type { AnyDb } from '../database.ts';

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

export interface TopicTables {
  topics: TopicRow;
  topic_members: TopicMemberRow;
  topic_jobs: TopicJobRow;
}

/** Dump order and row keys of the topic tables (rebuild comparisons). */
export const TOPIC_READ_MODEL_TABLES: Record<string, string[]> = {
  topics: ['tenant_id', 'space_id', 'topic_id'],
  topic_members: ['tenant_id', 'space_id', 'event_id'],
  topic_jobs: ['tenant_id', 'space_id'],
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
}
