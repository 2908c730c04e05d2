import type { Kysely } from 'kysely';
import { tokenize } from '@stratagate/domain';
import type { TimelineEntry } from '@stratagate/model';
import type { AnyDb, BlockRow, MemoryEventRow, ReadModelTables } from '@stratagate/store';
import { MAX_ATTEMPTS } from './summary-jobs.ts';

const rmOf = (db: AnyDb, schema: string) => (db as Kysely<ReadModelTables>).withSchema(schema);

/** Blocks whose summary succeeded and whose extraction is pending, or failed and due again. */
export async function dueExtractionJobs(db: AnyDb, schema: string, now: Date, limit: number) {
  return rmOf(db, schema)
    .selectFrom('blocks')
    .selectAll()
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
    .orderBy('sequence')
    .limit(limit)
    .execute();
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
  return { previous: view(previous), next: view(next) };
}

// Candidates for the relevance part of the timeline: the most recent events of the space. Until
// the BM25 index (MM-RET) exists, relevance is token overlap with the block's L0–L2 over these.
const TIMELINE_CANDIDATES = 400;

/**
 * MM-EVT-13: ≤ 8 relevant events, then ≤ 4 most recent not already chosen (no back-fill);
 * forgotten and archived events excluded, superseded ones allowed; no weights shown.
 */
export async function timeline(
  db: AnyDb,
  schema: string,
  block: BlockRow,
): Promise<TimelineEntry[]> {
  const rows = await rmOf(db, schema)
    .selectFrom('memory_events')
    .selectAll()
    .where('tenant_id', '=', block.tenant_id)
    .where('space_id', '=', block.space_id)
    .where('status', 'in', ['active', 'superseded'])
    .orderBy('block_sequence', 'desc')
    .orderBy('formed_turn', 'desc')
    .orderBy('created_at', 'desc')
    .orderBy('event_id', 'desc')
    .limit(TIMELINE_CANDIDATES)
    .execute();
  const query = new Set(
    tokenize(
      [
        block.title ?? '',
        (block.tags ?? []).join(' '),
        block.summary ?? '',
        ...(block.key_points ?? []),
      ].join('\n'),
    ),
  );
  const scored = rows
    .map((r) => {
      const tokens = new Set(tokenize(`${r.title}\n${r.summary}\n${r.tags.join(' ')}`));
      let shared = 0;
      for (const t of tokens) if (query.has(t)) shared++;
      return { r, score: shared / Math.sqrt(tokens.size + 1) };
    })
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score || (a.r.event_id < b.r.event_id ? -1 : 1));
  const relevant = scored.slice(0, 8).map((x) => x.r);
  const chosen = new Set(relevant.map((r) => r.event_id));
  const recent = rows.filter((r) => !chosen.has(r.event_id)).slice(0, 4);
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
