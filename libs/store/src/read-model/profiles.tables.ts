import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { AnyDb } from '../database.ts';

/*
 * The resident profiles' read model (MM-PRO, ADR 0050): tenant-scoped, keyed by
 * (tenant_id, profile_id), projected from the profiles' own streams. Spaces name the profile
 * they read in `spaces.profile_id`. Times are the records' own, so a rebuild is identical.
 */

/** One tenant's profile: the key of every profile table's rows (`inProfile`). */
export interface ProfileScope {
  tenantId: string;
  profileId: string;
}

/** The filter that confines a profile-table query to one profile of one tenant. */
export function inProfile(profile: ProfileScope, table?: string) {
  const column = (name: string) => sql.ref(table ? `${table}.${name}` : name);
  return <DB, TB extends keyof DB>(eb: ExpressionBuilder<DB, TB>): Expression<SqlBool> =>
    eb.and([
      eb(column('tenant_id'), '=', profile.tenantId),
      eb(column('profile_id'), '=', profile.profileId),
    ]);
}

/** One profile: its current fields and what maintenance needs. */
export interface ProfileRow {
  tenant_id: string;
  profile_id: string;
  created: boolean;
  /** Field changes so far (every source). */
  revision: number;
  fields: Record<string, string>;
  /** Per field the id of its latest change (MM-PRO-5). */
  field_revisions: Record<string, string | null>;
  total_chars: number;
  updated_at: string | null;
  first_non_empty_at: string | null;
  last_success_at: string | null;
  maintained_revision: number;
  maintenance_failures: number;
  next_attempt_at: string | null;
  last_maintenance: Record<string, unknown> | null;
  /** When maintenance is next due (MM-PRO-6), null when nothing makes it due. */
  maintenance_due_at: string | null;
  stream_version: number;
  applied_position: number;
}

/** One audit row per change (MM-PRO-5). */
export interface ProfileHistoryRow {
  tenant_id: string;
  profile_id: string;
  change_id: string;
  /** The profile revision this change made (1, 2, …). */
  seq: number;
  field: string;
  old_value: string;
  new_value: string;
  source: 'settings' | 'user_explicit' | 'agent_tool' | 'maintenance';
  updated_at: string;
  source_message_id: string | null;
  origin_space_id: string | null;
  origin_thread_id: string | null;
  proposal_id: string | null;
  position: number;
}

/** An agent's proposed change and how the user's next message decided it (MM-PRO-4). */
export interface ProfileProposalRow {
  tenant_id: string;
  profile_id: string;
  proposal_id: string;
  field: string;
  value: string;
  base_revision: string | null;
  origin_space_id: string;
  origin_thread_id: string;
  origin_turn_id: string | null;
  after_thread_turn: number;
  reason: string | null;
  proposed_at: string;
  status: 'pending' | 'applied' | 'expired';
  resolution: string | null;
  answer_message_id: string | null;
  resolved_at: string | null;
  position: number;
  applied_position: number;
}

export interface ProfileTables {
  profiles: ProfileRow;
  profile_history: ProfileHistoryRow;
  profile_proposals: ProfileProposalRow;
}

/** Dump order and row keys of the profile tables (rebuild comparisons). */
export const PROFILE_READ_MODEL_TABLES: Record<string, string[]> = {
  profiles: ['tenant_id', 'profile_id'],
  profile_history: ['tenant_id', 'profile_id', 'change_id'],
  profile_proposals: ['tenant_id', 'profile_id', 'proposal_id'],
};

export async function migrateProfilesReadModel(db: AnyDb, schema: string): Promise<void> {
  const s = sql.id(schema);
  const statements = [
    sql`alter table ${s}.spaces add column if not exists profile_id text not null default 'default'`,
    sql`create table if not exists ${s}.profiles (
      tenant_id text not null,
      profile_id text not null,
      created boolean not null,
      revision int not null,
      fields jsonb not null,
      field_revisions jsonb not null,
      total_chars int not null,
      updated_at text,
      first_non_empty_at text,
      last_success_at text,
      maintained_revision int not null,
      maintenance_failures int not null,
      next_attempt_at text,
      last_maintenance jsonb,
      maintenance_due_at text,
      stream_version int not null,
      applied_position bigint not null,
      primary key (tenant_id, profile_id)
    )`,
    // Due maintenance is found by one comparison (ISO UTC text orders as time).
    sql`create index if not exists profiles_maintenance_due on ${s}.profiles (maintenance_due_at)
      where maintenance_due_at is not null`,
    sql`create table if not exists ${s}.profile_history (
      tenant_id text not null,
      profile_id text not null,
      change_id text not null,
      seq int not null,
      field text not null,
      old_value text not null,
      new_value text not null,
      source text not null,
      updated_at text not null,
      source_message_id text,
      origin_space_id text,
      origin_thread_id text,
      proposal_id text,
      position bigint not null,
      primary key (tenant_id, profile_id, change_id)
    )`,
    sql`create index if not exists profile_history_by_seq on ${s}.profile_history
      (tenant_id, profile_id, seq desc)`,
    sql`create table if not exists ${s}.profile_proposals (
      tenant_id text not null,
      profile_id text not null,
      proposal_id text not null,
      field text not null,
      value text not null,
      base_revision text,
      origin_space_id text not null,
      origin_thread_id text not null,
      origin_turn_id text,
      after_thread_turn int not null,
      reason text,
      proposed_at text not null,
      status text not null,
      resolution text,
      answer_message_id text,
      resolved_at text,
      position bigint not null,
      applied_position bigint not null,
      primary key (tenant_id, profile_id, proposal_id)
    )`,
    // The consent job reads the pending proposals of a thread it has a new user message for.
    sql`create index if not exists profile_proposals_pending on ${s}.profile_proposals
      (tenant_id, origin_space_id, origin_thread_id) where status = 'pending'`,
  ];
  for (const statement of statements) await statement.execute(db);
}
