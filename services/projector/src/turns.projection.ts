import type { Kysely } from 'kysely';
import type { DecodedRecord, RecordOf } from '@stratagate/domain';
import type { ReadModelTables } from '@stratagate/store';

type Rm = Kysely<ReadModelTables>;
type Meta = DecodedRecord['meta'];

const DEFAULT_SPACE = { block_size: 12, decay_lambda: 0.3 };

/** Every record of a space makes sure its space row exists; settings arrive with SpaceConfigured. */
export async function ensureSpace(rm: Rm, meta: Meta): Promise<void> {
  await rm
    .insertInto('spaces')
    .values({
      tenant_id: meta.metadata.tenantId,
      space_id: meta.metadata.spaceId,
      ...DEFAULT_SPACE,
      turn_counter: 0,
      block_count: 0,
      applied_position: 0,
    })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

export async function ensureThread(rm: Rm, meta: Meta, threadId: string): Promise<void> {
  await rm
    .insertInto('threads')
    .values({
      tenant_id: meta.metadata.tenantId,
      space_id: meta.metadata.spaceId,
      thread_id: threadId,
      turn_count: 0,
      ready_count: 0,
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
      applied_position: meta.position,
    })
    .where('tenant_id', '=', meta.metadata.tenantId)
    .where('space_id', '=', meta.metadata.spaceId)
    .where('applied_position', '<', meta.position)
    .execute();
}

export async function onTurnRecorded(rm: Rm, rec: RecordOf<'TurnRecorded'>, meta: Meta) {
  const { tenantId, spaceId } = meta.metadata;
  const d = rec.data;
  await ensureThread(rm, meta, d.threadId);
  await rm
    .insertInto('turns')
    .values({
      tenant_id: tenantId,
      space_id: spaceId,
      turn_id: d.turnId,
      thread_id: d.threadId,
      space_turn: d.spaceTurn,
      thread_turn: d.threadTurn,
      occurred_at: d.occurredAt,
      block_id: null,
      position: meta.position,
      applied_position: meta.position,
    })
    .onConflict((oc) => oc.doNothing())
    .execute();
  await rm
    .insertInto('messages')
    .values(
      d.messages.map((m, seq) => ({
        tenant_id: tenantId,
        space_id: spaceId,
        message_id: m.messageId,
        turn_id: d.turnId,
        thread_id: d.threadId,
        seq,
        role: m.role,
        name: m.name ?? null,
        content: m.content,
        tool_calls: JSON.stringify(m.toolCalls) as never,
        occurred_at: d.occurredAt,
        space_turn: d.spaceTurn,
        thread_turn: d.threadTurn,
      })),
    )
    .onConflict((oc) => oc.doNothing())
    .execute();
  await rm
    .updateTable('threads')
    .set({ turn_count: d.threadTurn, applied_position: meta.position })
    .where('tenant_id', '=', tenantId)
    .where('space_id', '=', spaceId)
    .where('thread_id', '=', d.threadId)
    .where('applied_position', '<', meta.position)
    .execute();
  await rm
    .updateTable('spaces')
    .set({ turn_counter: d.spaceTurn, applied_position: meta.position })
    .where('tenant_id', '=', tenantId)
    .where('space_id', '=', spaceId)
    .where('applied_position', '<', meta.position)
    .execute();
}
