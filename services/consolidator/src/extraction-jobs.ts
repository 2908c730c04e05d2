import type { Kysely } from 'kysely';
import { rrfFuse } from '@stratagate/domain';
import type { TimelineEntry } from '@stratagate/model';
import {
  eventDocKind,
  searchIndex,
  type AnyDb,
  type BlockRow,
  type MemoryEventRow,
  type ReadModelTables,
} from '@stratagate/store';
import { blockMessages, MAX_ATTEMPTS, type SpaceRow } from './summary-jobs.ts';

const rmOf = (db: AnyDb, schema: string) => (db as Kysely<ReadModelTables>).withSchema(schema);

/**
 * Per space, the first block (by sequence) whose summary succeeded and whose extraction is
 * pending, or failed and due again: a space's extractions run one at a time (the consolidator's `runSpace`).
 */
export async function dueExtractionJobs(
  db: AnyDb,
  schema: string,
  now: Date,
  limit: number,
  space?: SpaceRow,
) {
  const rm = rmOf(db, schema);
  const first = rm
    .selectFrom('blocks')
    .selectAll()
    .$if(space !== undefined, (q) =>
      q.where('tenant_id', '=', space!.tenant_id).where('space_id', '=', space!.space_id),
    )
    .distinctOn(['tenant_id', 'space_id'])
    .where('summary_status', '=', 'succeeded')
    .where((eb) =>
      eb.or([
        eb('extraction_status', '=', 'pending'),
        eb.and([
          eb('extraction_status', '=', 'failed'),
          eb('extraction_attempts', '<', MAX_ATTEMPTS),
          eb('extraction_next_retry_at', '<=', now),
        ]),
      ]),
    )
    .orderBy('tenant_id')
    .orderBy('space_id')
    .orderBy('sequence');
  return rm.selectFrom(first.as('due')).selectAll().orderBy('sequence').limit(limit).execute();
}

/** The nearest earlier and later blocks of the thread that have L2 (MM-EVT-13). */
export async function neighbours(db: AnyDb, schema: string, block: BlockRow) {
  const base = rmOf(db, schema)
    .selectFrom('blocks')
    .select(['block_id', 'key_points'])
    .where('tenant_id', '=', block.tenant_id)
    .where('space_id', '=', block.space_id)
    .where('thread_id', '=', block.thread_id)
    .where('key_points', 'is not', null);
  const [previous, next] = await Promise.all([
    base
      .where('turn_to', '<', block.turn_from)
      .orderBy('turn_to', 'desc')
      .limit(1)
      .executeTakeFirst(),
    base.where('turn_from', '>', block.turn_to).orderBy('turn_from').limit(1).executeTakeFirst(),
  ]);
  const view = (b: typeof previous) =>
    b ? { blockId: b.block_id, keyPoints: b.key_points ?? [] } : null;
  const lastMessage = previous && (await lastSpokenMessage(db, schema, block, previous.block_id));
  return {
    previous: previous && { ...view(previous)!, ...(lastMessage ? { lastMessage } : {}) },
    next: view(next),
  };
}

/** Cut of the context message: a reply needs the gist of what it answers, not a paste. */
const CONTEXT_MESSAGE_CHARS = 1_000;

/**
 * The last user or assistant message of a block: context for the next block's first message,
 * which often replies to it (MM-EVT-13 neighbours are context only; it is never cited).
 */
async function lastSpokenMessage(db: AnyDb, schema: string, block: BlockRow, blockId: string) {
  const rows = await blockMessages(db, schema, { ...block, block_id: blockId });
  const row = rows.filter((m) => m.role === 'user' || m.role === 'assistant').at(-1);
  if (!row || (row.role !== 'user' && row.role !== 'assistant')) return undefined;
  return {
    role: row.role,
    ...(row.name ? { name: row.name } : {}),
    content: Array.from(row.content.slice(0, 2 * CONTEXT_MESSAGE_CHARS))
      .slice(0, CONTEXT_MESSAGE_CHARS)
      .join(''),
  } as const;
}

/** Relevant events on the timeline, and the most recent extracted ones after them (MM-EVT-13). */
const TIMELINE_RELEVANT = 8;
const TIMELINE_RECENT = 4;

/** The block's L0–L2 as one text: the query of the timeline's relevance part. */
function blockDigest(block: BlockRow): string {
  return [
    block.title ?? '',
    (block.tags ?? []).join(' '),
    block.summary ?? '',
    ...(block.key_points ?? []),
  ].join('\n');
}

/**
 * MM-EVT-13: ≤ 8 relevant events, then ≤ 4 most recent extracted events not already chosen (no
 * back-fill); forgotten and archived events excluded, superseded ones allowed; no weights shown.
 *
 * "Relevant" is event search (MM-RET-3) with the block's L0–L2 as the query and every parameter
 * at its default: each pool (extracted, agent) ranked by BM25 over the search index, fused by RRF
 * at weight 1 each. Nothing is stamped as retrieved (`trackRetrieval=false`).
 */
export async function timeline(
  db: AnyDb,
  schema: string,
  block: BlockRow,
): Promise<TimelineEntry[]> {
  const space = { tenantId: block.tenant_id, spaceId: block.space_id };
  const query = blockDigest(block);
  const pools = await Promise.all(
    (['extracted', 'agent'] as const).map(async (pool) => {
      const ranked = await searchIndex(db, schema, {
        space,
        kind: eventDocKind(pool),
        query,
        limit: TIMELINE_RELEVANT,
      });
      return { ids: ranked.map((r) => r.id) };
    }),
  );
  const relevantIds = rrfFuse(pools)
    .slice(0, TIMELINE_RELEVANT)
    .map((f) => f.id);
  const [relevantRows, recentRows] = await Promise.all([
    relevantIds.length === 0
      ? []
      : rmOf(db, schema)
          .selectFrom('memory_events')
          .selectAll()
          .where('tenant_id', '=', block.tenant_id)
          .where('space_id', '=', block.space_id)
          .where('event_id', 'in', relevantIds)
          .where('status', 'in', ['active', 'superseded'])
          .execute(),
    // Enough to leave 4 after the relevant ones are taken out.
    rmOf(db, schema)
      .selectFrom('memory_events')
      .selectAll()
      .where('tenant_id', '=', block.tenant_id)
      .where('space_id', '=', block.space_id)
      .where('pool', '=', 'extracted')
      .where('status', 'in', ['active', 'superseded'])
      .orderBy('block_sequence', 'desc')
      .orderBy('formed_turn', 'desc')
      .orderBy('created_at', 'desc')
      .orderBy('event_id', 'desc')
      .limit(TIMELINE_RELEVANT + TIMELINE_RECENT)
      .execute(),
  ]);
  const byId = new Map(relevantRows.map((r) => [r.event_id, r]));
  const relevant = relevantIds.flatMap((id) => byId.get(id) ?? []);
  const chosen = new Set(relevant.map((r) => r.event_id));
  const recent = recentRows.filter((r) => !chosen.has(r.event_id)).slice(0, TIMELINE_RECENT);
  return [...relevant, ...recent].map(entry);
}

function entry(r: MemoryEventRow): TimelineEntry {
  const t = r.temporal as TimelineEntry['temporal'];
  return {
    id: r.event_id,
    title: r.title,
    summary: Array.from(r.summary).slice(0, 400).join(''),
    scope: r.scope,
    criticality: r.criticality,
    status: r.status === 'superseded' ? 'superseded' : 'active',
    supersededBy: r.superseded_by,
    temporal: t,
  };
}

/** Timeline ids still active or superseded now: the only ones relations may name (MM-EVT-15). */
export async function linkableIds(db: AnyDb, schema: string, block: BlockRow, ids: string[]) {
  if (ids.length === 0) return new Set<string>();
  const rows = await rmOf(db, schema)
    .selectFrom('memory_events')
    .select('event_id')
    .where('tenant_id', '=', block.tenant_id)
    .where('space_id', '=', block.space_id)
    .where('event_id', 'in', ids)
    .where('status', 'in', ['active', 'superseded'])
    .execute();
  return new Set(rows.map((r) => r.event_id));
}
