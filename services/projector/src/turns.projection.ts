import { sql, type Kysely } from 'kysely';
import type { DecodedRecord, RecordOf } from '@stratagate/domain';
import {
  MESSAGE_COLUMN_TYPES,
  TURN_COLUMN_TYPES,
  insertJsonRows,
  type MessageRow,
  type ReadModelTables,
  type TurnRow,
} from '@stratagate/store';

type Rm = Kysely<ReadModelTables>;
type Meta = DecodedRecord['meta'];

/** Rules of the core projection this module reads (see CoreProjectionRules). */
export interface SpaceDefaults {
  defaultDecayLambda: number;
}

// The block size here only describes the space: seals are recorded (BlockSealed), so it is the
// writer's default, not a rule. The λ of an unconfigured space is a rule (rebuilds apply it).
const defaultSpace = (rules: SpaceDefaults) => ({
  block_size: 12,
  decay_lambda: rules.defaultDecayLambda,
  profile_id: 'default',
});

/** Every record of a space makes sure its space row exists; settings arrive with SpaceConfigured. */
export async function ensureSpace(rm: Rm, meta: Meta, rules: SpaceDefaults): Promise<void> {
  await rm
    .insertInto('spaces')
    .values({
      tenant_id: meta.metadata.tenantId,
      space_id: meta.metadata.spaceId,
      ...defaultSpace(rules),
      turn_counter: 0,
      block_count: 0,
      applied_position: 0,
    })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

export async function onSpaceConfigured(rm: Rm, rec: RecordOf<'SpaceConfigured'>, meta: Meta) {
  await rm
    .updateTable('spaces')
    .set({
      block_size: rec.data.blockSize,
      decay_lambda: rec.data.decayLambda,
      profile_id: rec.data.profileId ?? 'default',
      applied_position: meta.position,
    })
    .where('tenant_id', '=', meta.metadata.tenantId)
    .where('space_id', '=', meta.metadata.spaceId)
    .where('applied_position', '<', meta.position)
    .execute();
}

export type TurnRecord = RecordOf<'TurnRecorded'> & { meta: Meta };

/**
 * A run of consecutive TurnRecorded records in a handful of statements, whatever its length:
 * turns arrive far more often than anything else, so this is the projector's hot path.
 * Inserts skip rows already there; thread and space counters move only forward (position guards),
 * so a batch delivered twice changes nothing.
 */
export async function onTurnsRecorded(
  rm: Rm,
  schema: string,
  turns: TurnRecord[],
  rules: SpaceDefaults,
) {
  if (turns.length === 0) return;
  const spaces = new Map<
    string,
    { tenant_id: string; space_id: string; turn: number; position: number }
  >();
  const threads = new Map<
    string,
    { tenant_id: string; space_id: string; thread_id: string; turn: number; position: number }
  >();
  for (const r of turns) {
    const { tenantId, spaceId } = r.meta.metadata;
    const sk = `${tenantId}/${spaceId}`;
    spaces.set(sk, {
      tenant_id: tenantId,
      space_id: spaceId,
      turn: r.data.spaceTurn,
      position: r.meta.position,
    });
    threads.set(`${sk}/${r.data.threadId}`, {
      tenant_id: tenantId,
      space_id: spaceId,
      thread_id: r.data.threadId,
      turn: r.data.threadTurn,
      position: r.meta.position,
    });
  }
  await rm
    .insertInto('spaces')
    .values(
      [...spaces.values()].map((s) => ({
        tenant_id: s.tenant_id,
        space_id: s.space_id,
        ...defaultSpace(rules),
        turn_counter: 0,
        block_count: 0,
        applied_position: 0,
      })),
    )
    .onConflict((oc) => oc.doNothing())
    .execute();
  await rm
    .insertInto('threads')
    .values(
      [...threads.values()].map((t) => ({
        tenant_id: t.tenant_id,
        space_id: t.space_id,
        thread_id: t.thread_id,
        turn_count: 0,
        ready_count: 0,
        applied_position: 0,
      })),
    )
    .onConflict((oc) => oc.doNothing())
    .execute();
  await insertJsonRows<TurnRow>(
    rm,
    schema,
    'turns',
    TURN_COLUMN_TYPES,
    turns.map((r) => ({
      tenant_id: r.meta.metadata.tenantId,
      space_id: r.meta.metadata.spaceId,
      turn_id: r.data.turnId,
      thread_id: r.data.threadId,
      space_turn: r.data.spaceTurn,
      thread_turn: r.data.threadTurn,
      occurred_at: r.data.occurredAt,
      block_id: null,
      position: r.meta.position,
      applied_position: r.meta.position,
    })),
  );
  await insertJsonRows<MessageRow>(
    rm,
    schema,
    'messages',
    MESSAGE_COLUMN_TYPES,
    turns.flatMap((r) =>
      r.data.messages.map((m, seq) => ({
        tenant_id: r.meta.metadata.tenantId,
        space_id: r.meta.metadata.spaceId,
        message_id: m.messageId,
        turn_id: r.data.turnId,
        thread_id: r.data.threadId,
        seq,
        role: m.role,
        name: m.name ?? null,
        content: m.content,
        tool_calls: m.toolCalls,
        occurred_at: r.data.occurredAt,
        space_turn: r.data.spaceTurn,
        thread_turn: r.data.threadTurn,
      })),
    ),
  );
  await sql`
    update ${sql.table(`${schema}.threads`)} as t
    set turn_count = v.turn, applied_position = v.position
    from (values ${sql.join(
      [...threads.values()].map(
        (x) =>
          sql`(${x.tenant_id}, ${x.space_id}, ${x.thread_id}, ${x.turn}::int, ${x.position}::bigint)`,
      ),
    )}) as v(tenant_id, space_id, thread_id, turn, position)
    where t.tenant_id = v.tenant_id and t.space_id = v.space_id and t.thread_id = v.thread_id
      and t.applied_position < v.position`.execute(rm);
  await sql`
    update ${sql.table(`${schema}.spaces`)} as s
    set turn_counter = v.turn, applied_position = v.position
    from (values ${sql.join(
      [...spaces.values()].map(
        (x) => sql`(${x.tenant_id}, ${x.space_id}, ${x.turn}::int, ${x.position}::bigint)`,
      ),
    )}) as v(tenant_id, space_id, turn, position)
    where s.tenant_id = v.tenant_id and s.space_id = v.space_id and s.applied_position < v.position`.execute(
    rm,
  );
}
