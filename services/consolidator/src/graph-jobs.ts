import type { Kysely } from 'kysely';
import {
  normaliseEntityName,
  type GraphSnapshot,
  type SourceEventInfo,
  type SourceEventStatus,
} from '@stratagate/domain';
import type { GraphProposalInput, GraphSourceEvent } from '@stratagate/model';
import {
  toEdge,
  toFact,
  toNode,
  type AnyDb,
  type BlockRow,
  type GraphNodeRow,
  type MemoryEventRow,
  type ReadModelTables,
} from '@stratagate/store';
import { blockMessagesInOrder, MAX_ATTEMPTS, type SpaceRow } from './summary-jobs.ts';

const rmOf = (db: AnyDb, schema: string) => (db as Kysely<ReadModelTables>).withSchema(schema);

/**
 * Per space, the first block (by sequence) whose graph job is pending, or failed and due again:
 * a space's graph jobs run one at a time, each against the graph the one before it left
 * (the consolidator's `runSpace`).
 */
export async function dueGraphJobs(
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
    .where((eb) =>
      eb.or([
        eb('graph_status', '=', 'pending'),
        eb.and([
          eb('graph_status', '=', 'failed'),
          eb('graph_attempts', '<', MAX_ATTEMPTS),
          eb('graph_next_retry_at', '<=', now),
        ]),
      ]),
    )
    .orderBy('tenant_id')
    .orderBy('space_id')
    .orderBy('sequence');
  return rm.selectFrom(first.as('due')).selectAll().orderBy('sequence').limit(limit).execute();
}

/** MM-GRF-7: happenedStart ?? happenedEnd ?? mentionedAt ?? createdAt. */
export function sourceTime(e: MemoryEventRow): string {
  return e.happened_start ?? e.happened_end ?? e.mentioned_at ?? e.created_at;
}

/**
 * What a graph job needs (MM-GRF-10): the block's events, and as context the name-matched nodes
 * plus the 24 most recent (≤ 32), their facts, and ≤ 60 edges among them.
 */
export async function graphJobContext(db: AnyDb, schema: string, block: BlockRow) {
  const rm = rmOf(db, schema);
  const events = await rm
    .selectFrom('memory_events')
    .selectAll()
    .where('tenant_id', '=', block.tenant_id)
    .where('space_id', '=', block.space_id)
    .where('source_block_id', '=', block.block_id)
    .where('status', 'in', ['active', 'superseded'])
    .execute()
    .then(async (rows) => {
      const said = await blockMessagesInOrder(db, schema, block).select('m.message_id').execute();
      return inSpokenOrder(
        rows,
        said.map((m) => m.message_id),
      );
    });
  const names = new Set<string>();
  for (const e of events) {
    for (const p of (e.temporal as { participants?: string[] }).participants ?? [])
      names.add(normaliseEntityName(p));
    for (const t of e.tags) names.add(normaliseEntityName(t));
  }
  const nodeBase = rm
    .selectFrom('graph_nodes')
    .selectAll()
    .where('tenant_id', '=', block.tenant_id)
    .where('space_id', '=', block.space_id)
    .where('status', 'in', ['active', 'disputed']);
  const [matched, recent] = await Promise.all([
    names.size > 0
      ? nodeBase
          .where('normalised_name', 'in', [...names])
          .limit(32)
          .execute()
      : Promise.resolve([]),
    nodeBase.orderBy('created_position', 'desc').limit(24).execute(),
  ]);
  const byId = new Map<string, GraphNodeRow>();
  for (const n of [...matched, ...recent]) if (byId.size < 32) byId.set(n.node_id, n);
  const nodeIds = [...byId.keys()];
  const [facts, edges] =
    nodeIds.length === 0
      ? [[], []]
      : await Promise.all([
          rm
            .selectFrom('graph_facts')
            .selectAll()
            .where('tenant_id', '=', block.tenant_id)
            .where('space_id', '=', block.space_id)
            .where('node_id', 'in', nodeIds)
            .where('status', '!=', 'archived')
            .execute(),
          rm
            .selectFrom('graph_edges')
            .selectAll()
            .where('tenant_id', '=', block.tenant_id)
            .where('space_id', '=', block.space_id)
            .where('from_id', 'in', nodeIds)
            .where('to_id', 'in', nodeIds)
            .where('status', '!=', 'archived')
            .limit(60)
            .execute(),
        ]);
  const snapshot: GraphSnapshot = {
    nodes: [...byId.values()].map(toNode),
    facts: facts.map(toFact),
    edges: edges.map(toEdge),
  };
  const proposalInput: GraphProposalInput = {
    events: events.map((e): GraphSourceEvent => ({
      id: e.event_id,
      title: e.title,
      summary: e.summary,
      tags: e.tags,
      scope: e.scope,
      eventType: e.event_type,
      participants: (e.temporal as { participants?: string[] }).participants ?? [],
      sourceTime: sourceTime(e),
    })),
    nodes: snapshot.nodes.map((n) => ({
      id: n.id,
      name: n.name,
      type: n.type,
      aliases: n.aliases.filter((a) => a.visible).map((a) => a.value),
      currentFacts: snapshot.facts
        .filter((f) => f.nodeId === n.id && (f.status === 'active' || f.status === 'disputed'))
        .map((f) => ({ key: f.key, value: f.value })),
    })),
    edges: snapshot.edges
      .filter((e) => e.status === 'active' || e.status === 'disputed')
      .map((e) => ({ fromId: e.fromId, toId: e.toId, relation: e.relation })),
  };
  return { events, snapshot, proposalInput };
}

/**
 * The batch's events in the order they were said (first cited message), then by text. The
 * proposal depends on the order of its input (the first spelling of a name becomes the node's
 * name), and event ids are random, so ordering by id would let a rerun name a node differently.
 */
export function inSpokenOrder<
  E extends Pick<MemoryEventRow, 'event_id' | 'title' | 'summary' | 'source_message_ids'>,
>(events: readonly E[], messageIds: readonly string[]): E[] {
  const index = new Map(messageIds.map((id, i) => [id, i]));
  const first = (e: E) =>
    Math.min(messageIds.length, ...e.source_message_ids.map((id) => index.get(id) ?? Infinity));
  const text = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...events].sort(
    (a, b) =>
      first(a) - first(b) ||
      text(a.title, b.title) ||
      text(a.summary, b.summary) ||
      text(a.event_id, b.event_id),
  );
}

/** Status and time of every event the plan may look at: the batch and the snapshot's sources. */
export async function sourceEventInfo(
  db: AnyDb,
  schema: string,
  block: BlockRow,
  snapshot: GraphSnapshot,
  batchIds: string[],
): Promise<SourceEventInfo[]> {
  const ids = new Set(batchIds);
  for (const n of snapshot.nodes) {
    for (const id of [...n.sourceEventIds, ...n.nameSourceEventIds]) ids.add(id);
    for (const a of [...n.aliases, ...n.tags]) for (const id of a.sourceEventIds) ids.add(id);
  }
  for (const x of [...snapshot.facts, ...snapshot.edges])
    for (const id of x.sourceEventIds) ids.add(id);
  if (ids.size === 0) return [];
  const rows = await rmOf(db, schema)
    .selectFrom('memory_events as e')
    .leftJoin('memory_events as by', (join) =>
      join
        .onRef('by.tenant_id', '=', 'e.tenant_id')
        .onRef('by.space_id', '=', 'e.space_id')
        .onRef('by.event_id', '=', 'e.superseded_by'),
    )
    .selectAll('e')
    .select('by.block_sequence as superseded_in_block')
    .where('e.tenant_id', '=', block.tenant_id)
    .where('e.space_id', '=', block.space_id)
    .where('e.event_id', 'in', [...ids])
    .execute();
  return rows.map((r) => ({
    id: r.event_id,
    status: statusAsOfBlock(r.status, r.superseded_in_block, block.sequence),
    sourceTime: canonicalTime(sourceTime(r)),
  }));
}

/**
 * An event's status as the job's block left it. When the blocks after it were extracted before
 * its graph job ran (a bulk import), one of them may have superseded a source of the batch; the
 * plan would then drop the batch's claims as having no active source (MM-GRF-4), where a live
 * conversation would have recorded them and let the later block's graph job supersede them,
 * keeping them as history. A supersede by a later block is that block's graph job's business, so
 * the graph comes out the same whichever ran first.
 */
export function statusAsOfBlock(
  status: SourceEventStatus,
  supersededInBlock: number | null,
  blockSequence: number,
): SourceEventStatus {
  return status === 'superseded' && supersededInBlock !== null && supersededInBlock > blockSequence
    ? 'active'
    : status;
}

/** Normalised UTC ISO for the planner; a date stays a date. */
function canonicalTime(value: string): string {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return value;
  const t = Date.parse(value);
  return Number.isNaN(t) ? value : new Date(t).toISOString();
}
