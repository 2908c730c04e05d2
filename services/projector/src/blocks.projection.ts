import { sql, type Kysely } from 'kysely';
import { deriveLayers, type DecodedRecord, type RecordOf } from '@stratagate/domain';
import type { BlockRow, MessageRow, ReadModelTables } from '@stratagate/store';
import { queueMessageIndex } from './message-index.ts';

type Rm = Kysely<ReadModelTables>;
type Meta = DecodedRecord['meta'];

function blockQuery(rm: Rm, meta: Meta, blockId: string) {
  return rm
    .selectFrom('blocks')
    .selectAll()
    .where('tenant_id', '=', meta.metadata.tenantId)
    .where('space_id', '=', meta.metadata.spaceId)
    .where('block_id', '=', blockId);
}

/** The block row if this record has not been applied to it yet (row-level idempotency guard). */
export async function unappliedBlock(
  rm: Rm,
  meta: Meta,
  blockId: string,
): Promise<BlockRow | null> {
  const block = await blockQuery(rm, meta, blockId).executeTakeFirst();
  if (!block || Number(block.applied_position) >= meta.position) return null;
  return block;
}

export async function updateBlock(rm: Rm, meta: Meta, blockId: string, set: Partial<BlockRow>) {
  await rm
    .updateTable('blocks')
    .set({ ...set, applied_position: meta.position } as never)
    .where('tenant_id', '=', meta.metadata.tenantId)
    .where('space_id', '=', meta.metadata.spaceId)
    .where('block_id', '=', blockId)
    .execute();
}

async function threadReadyCount(rm: Rm, meta: Meta, threadId: string): Promise<number> {
  const t = await rm
    .selectFrom('threads')
    .select('ready_count')
    .where('tenant_id', '=', meta.metadata.tenantId)
    .where('space_id', '=', meta.metadata.spaceId)
    .where('thread_id', '=', threadId)
    .executeTakeFirstOrThrow();
  return t.ready_count;
}

/**
 * MM-BLK-16: a block turns ready once L0–L2 are valid and extraction succeeded or was skipped.
 * It then sits at level 5, anchored at its 1-based rank among the thread's ready blocks.
 */
export async function readyFields(rm: Rm, meta: Meta, b: BlockRow): Promise<Partial<BlockRow>> {
  const complete =
    b.status === 'pending' &&
    b.summary_status === 'succeeded' &&
    (b.extraction_status === 'skipped' || b.extraction_status === 'succeeded');
  if (!complete) return {};
  const rank = (await threadReadyCount(rm, meta, b.thread_id)) + 1;
  await rm
    .updateTable('threads')
    .set({ ready_count: rank, applied_position: meta.position })
    .where('tenant_id', '=', meta.metadata.tenantId)
    .where('space_id', '=', meta.metadata.spaceId)
    .where('thread_id', '=', b.thread_id)
    .execute();
  return { status: 'ready', ready_position: rank, anchor_position: rank, anchor_level: 5 };
}

/** A `BlockSealed` record with its metadata, as the core projection gathers them. */
export interface SealedBlock {
  rec: RecordOf<'BlockSealed'>;
  meta: Meta;
}

/**
 * Applies the seals gathered from one run of a batch (ADR 0028): for all of them together, one
 * statement reads their messages, one inserts the blocks with L3–L5, one queues the new ones for
 * raw search, one points their turns at them, and one moves the spaces' block counts. The caller
 * has applied every turn record before the last seal, so each block's messages are there. Turns
 * recorded after a seal may have been applied before it, so the spaces' counters only grow
 * (`greatest`): the rows end as one record at a time leaves them, and a redelivered seal changes
 * nothing.
 */
export async function onBlocksSealed(rm: Rm, schema: string, seals: readonly SealedBlock[]) {
  if (seals.length === 0) return;
  const turnKeys = seals.flatMap(({ rec, meta }) =>
    rec.data.turnIds.map((turnId) => ({
      tenant_id: meta.metadata.tenantId,
      space_id: meta.metadata.spaceId,
      turn_id: turnId,
      block_id: rec.data.blockId,
    })),
  );
  const keysJson = JSON.stringify(turnKeys);
  const messages = await sql<
    Pick<MessageRow, 'tenant_id' | 'space_id' | 'turn_id' | 'role' | 'content' | 'tool_calls'> & {
      block_id: string;
    }
  >`
    select k.block_id, m.tenant_id, m.space_id, m.turn_id, m.role, m.content, m.tool_calls
    from jsonb_to_recordset(${keysJson}::jsonb)
      as k(tenant_id text, space_id text, turn_id text, block_id text)
    join ${sql.table(`${schema}.messages`)} m
      on m.tenant_id = k.tenant_id and m.space_id = k.space_id and m.turn_id = k.turn_id
    order by m.tenant_id, m.space_id, k.block_id, m.thread_turn, m.seq`.execute(rm);
  const byBlock = new Map<string, typeof messages.rows>();
  for (const m of messages.rows) {
    const key = blockKey(m.tenant_id, m.space_id, m.block_id);
    const list = byBlock.get(key);
    if (list) list.push(m);
    else byBlock.set(key, [m]);
  }
  const rows = seals.map(({ rec, meta }) => {
    const { tenantId, spaceId } = meta.metadata;
    const d = rec.data;
    const layers = deriveLayers(
      (byBlock.get(blockKey(tenantId, spaceId, d.blockId)) ?? []).map((m) => ({
        role: m.role,
        content: m.content,
        toolCalls: m.tool_calls,
      })),
    );
    return {
      tenant_id: tenantId,
      space_id: spaceId,
      block_id: d.blockId,
      thread_id: d.threadId,
      sequence: d.sequence,
      turn_from: d.turnFrom,
      turn_to: d.turnTo,
      space_turn_to: d.spaceTurnTo,
      sealed_at: meta.metadata.occurredAt,
      status: 'pending' as const,
      l3: layers.l3,
      l4: layers.l4,
      l5: layers.l5,
      tokens_l3: layers.tokens.l3,
      tokens_l4: layers.tokens.l4,
      tokens_l5: layers.tokens.l5,
      summary_status: 'pending' as const,
      summary_attempts: 0,
      summary_cycle: 0,
      extraction_status: 'pending' as const,
      extraction_attempts: 0,
      extraction_cycle: 0,
      event_count: 0,
      graph_status: 'none' as const,
      graph_attempts: 0,
      graph_cycle: 0,
      applied_position: meta.position,
    };
  });
  const inserted = await rm
    .insertInto('blocks')
    .values(rows)
    .onConflict((oc) => oc.doNothing())
    .returning(['tenant_id', 'space_id', 'block_id'])
    .execute();
  // Raw search covers sealed L5 messages (MM-RET-6), each with the thread's previous message as
  // context. The seal queues the block; the indexing lane indexes it (ADR 0014). Only a new block
  // is queued, so a redelivered seal does not queue an indexed block again.
  const fresh = new Set(inserted.map((b) => blockKey(b.tenant_id, b.space_id, b.block_id)));
  await queueMessageIndex(
    rm,
    seals
      .filter(({ rec, meta }) =>
        fresh.has(blockKey(meta.metadata.tenantId, meta.metadata.spaceId, rec.data.blockId)),
      )
      .map(({ rec, meta }) => ({ meta, blockId: rec.data.blockId })),
  );
  await sql`
    update ${sql.table(`${schema}.turns`)} as t set block_id = k.block_id
    from jsonb_to_recordset(${keysJson}::jsonb)
      as k(tenant_id text, space_id text, turn_id text, block_id text)
    where t.tenant_id = k.tenant_id and t.space_id = k.space_id and t.turn_id = k.turn_id
      and t.block_id is distinct from k.block_id`.execute(rm);
  // Seals come in log order: a space's last seal has its highest sequence and position.
  const spaces = new Map<
    string,
    { tenant_id: string; space_id: string; seq: number; pos: number }
  >();
  for (const { rec, meta } of seals) {
    const { tenantId, spaceId } = meta.metadata;
    spaces.set(JSON.stringify([tenantId, spaceId]), {
      tenant_id: tenantId,
      space_id: spaceId,
      seq: rec.data.sequence,
      pos: meta.position,
    });
  }
  await sql`
    update ${sql.table(`${schema}.spaces`)} as s
    set block_count = greatest(s.block_count, v.seq),
      applied_position = greatest(s.applied_position, v.pos)
    from jsonb_to_recordset(${JSON.stringify([...spaces.values()])}::jsonb)
      as v(tenant_id text, space_id text, seq int, pos bigint)
    where s.tenant_id = v.tenant_id and s.space_id = v.space_id
      and (s.block_count < v.seq or s.applied_position < v.pos)`.execute(rm);
}

const blockKey = (tenantId: string, spaceId: string, blockId: string) =>
  JSON.stringify([tenantId, spaceId, blockId]);

export async function onBlockSummarized(rm: Rm, rec: RecordOf<'BlockSummarized'>, meta: Meta) {
  const b = await unappliedBlock(rm, meta, rec.data.blockId);
  // First summary wins; a late duplicate from a second worker changes nothing.
  if (!b || b.summary_status === 'succeeded') return;
  const d = rec.data;
  const next: BlockRow = {
    ...b,
    title: d.title,
    tags: d.tags,
    summary: d.summary,
    key_points: d.keyPoints,
    should_extract: d.shouldExtract,
    summary_status: 'succeeded',
    summary_attempts: d.attempt,
    summary_next_retry_at: null,
    summary_last_error: null,
    extraction_status: d.shouldExtract ? b.extraction_status : 'skipped',
  };
  await updateBlock(rm, meta, b.block_id, {
    title: next.title,
    tags: JSON.stringify(next.tags) as never,
    summary: next.summary,
    key_points: JSON.stringify(next.key_points) as never,
    should_extract: next.should_extract,
    model: JSON.stringify(d.model) as never,
    summary_status: next.summary_status,
    summary_attempts: next.summary_attempts,
    summary_next_retry_at: null,
    summary_last_error: null,
    extraction_status: next.extraction_status,
    ...(await readyFields(rm, meta, next)),
  });
}

export async function onExtractionSkipped(rm: Rm, rec: RecordOf<'ExtractionSkipped'>, meta: Meta) {
  const b = await unappliedBlock(rm, meta, rec.data.blockId);
  if (!b || b.extraction_status === 'succeeded' || b.extraction_status === 'skipped') return;
  const next: BlockRow = { ...b, extraction_status: 'skipped' };
  await updateBlock(rm, meta, b.block_id, {
    extraction_status: 'skipped',
    ...(await readyFields(rm, meta, next)),
  });
}

export async function onDerivationFailed(rm: Rm, rec: RecordOf<'DerivationFailed'>, meta: Meta) {
  const b = await unappliedBlock(rm, meta, rec.data.blockId);
  if (!b) return;
  const d = rec.data;
  const message = `${d.error.code}: ${d.error.message}`;
  switch (d.job) {
    case 'summary':
      if (b.summary_status === 'succeeded') return;
      await updateBlock(rm, meta, b.block_id, {
        summary_status: 'failed',
        summary_attempts: d.attempt,
        summary_next_retry_at: d.nextRetryAt ? new Date(d.nextRetryAt) : null,
        summary_last_error: message,
      });
      return;
    case 'extraction':
      if (b.extraction_status === 'succeeded' || b.extraction_status === 'skipped') return;
      await updateBlock(rm, meta, b.block_id, {
        extraction_status: 'failed',
        extraction_attempts: d.attempt,
        extraction_next_retry_at: d.nextRetryAt ? new Date(d.nextRetryAt) : null,
        extraction_last_error: message,
      });
      return;
    case 'graph':
      if (b.graph_status !== 'pending' && b.graph_status !== 'failed') return;
      await updateBlock(rm, meta, b.block_id, {
        graph_status: 'failed',
        graph_attempts: d.attempt,
        graph_next_retry_at: d.nextRetryAt ? new Date(d.nextRetryAt) : null,
        graph_last_error: message,
      });
      return;
    default: {
      const never: never = d.job;
      return never;
    }
  }
}

/** MM-JOB-3: a manual retry applies to failed jobs only and resets their attempts. */
export async function onDerivationRetryRequested(
  rm: Rm,
  rec: RecordOf<'DerivationRetryRequested'>,
  meta: Meta,
) {
  const b = await unappliedBlock(rm, meta, rec.data.blockId);
  if (!b) return;
  switch (rec.data.job) {
    case 'summary':
      if (b.summary_status !== 'failed') return;
      await updateBlock(rm, meta, b.block_id, {
        summary_status: 'pending',
        summary_attempts: 0,
        summary_cycle: b.summary_cycle + 1,
        summary_next_retry_at: null,
      });
      return;
    case 'extraction':
      // A manual retry of extraction does not rerun the summary (MM-JOB-3).
      if (b.extraction_status !== 'failed') return;
      await updateBlock(rm, meta, b.block_id, {
        extraction_status: 'pending',
        extraction_attempts: 0,
        extraction_cycle: b.extraction_cycle + 1,
        extraction_next_retry_at: null,
      });
      return;
    case 'graph':
      if (b.graph_status !== 'failed') return;
      await updateBlock(rm, meta, b.block_id, {
        graph_status: 'pending',
        graph_attempts: 0,
        graph_cycle: b.graph_cycle + 1,
        graph_next_retry_at: null,
      });
      return;
    default: {
      const never: never = rec.data.job;
      return never;
    }
  }
}

/** MM-BLK-20: the anchor moves to the newest ready position, so fading starts over. */
export async function onBlockExpanded(rm: Rm, rec: RecordOf<'BlockExpanded'>, meta: Meta) {
  const b = await unappliedBlock(rm, meta, rec.data.blockId);
  if (!b || b.status !== 'ready') return;
  await updateBlock(rm, meta, b.block_id, {
    anchor_level: rec.data.toLevel,
    anchor_position: await threadReadyCount(rm, meta, b.thread_id),
    last_lifted_at: meta.metadata.occurredAt,
    last_lifted_by: rec.data.source,
  });
}

/** MM-EVT-20: an operator re-extraction; the block stays ready while it runs again. */
export async function onReconsolidationRequested(
  rm: Rm,
  rec: RecordOf<'ReconsolidationRequested'>,
  meta: Meta,
) {
  const b = await unappliedBlock(rm, meta, rec.data.blockId);
  if (!b || b.summary_status !== 'succeeded' || b.extraction_status === 'pending') return;
  await updateBlock(rm, meta, b.block_id, {
    extraction_status: 'pending',
    extraction_attempts: 0,
    extraction_cycle: b.extraction_cycle + 1,
    extraction_next_retry_at: null,
    extraction_last_error: null,
  });
}
