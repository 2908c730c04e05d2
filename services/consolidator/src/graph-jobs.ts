import type { Kysely } from 'kysely';
import { normaliseEntityName, type GraphSnapshot, type SourceEventInfo } from '@stratagate/domain';
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
import { MAX_ATTEMPTS } from './summary-jobs.ts';

const rmOf = (db: AnyDb, schema: string) => (db as Kysely<ReadModelTables>).withSchema(schema);

export async function dueGraphJobs(db: AnyDb, schema: string, now: Date, limit: number) {
  return rmOf(db, schema)
    .selectFrom('blocks')
    .selectAll()
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
    .orderBy('sequence')
    .limit(limit)
    .execute();
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
    .orderBy('event_id')
    .execute();
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
    .selectFrom('memory_events')
    .selectAll()
    .where('tenant_id', '=', block.tenant_id)
    .where('space_id', '=', block.space_id)
    .where('event_id', 'in', [...ids])
    .execute();
  return rows.map((r) => ({
    id: r.event_id,
    status: r.status,
    sourceTime: canonicalTime(sourceTime(r)),
  }));
}

/** Normalised UTC ISO for the planner; a date stays a date. */
function canonicalTime(value: string): string {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return value;
  const t = Date.parse(value);
  return Number.isNaN(t) ? value : new Date(t).toISOString();
}
