import type { Kysely } from 'kysely';
import { effectiveNode, type EffectiveNode } from '@stratagate/domain';
import { toEdge, toFact, toNode } from './graph-rows.ts';
import { inSpace, type SpaceScope } from './in-space.ts';
import type { MemoryEventStatus, ReadModelTables } from './tables.ts';

/** What a graph reader needs to know of a cited memory event. */
export interface GraphEventInfo {
  id: string;
  title: string;
  status: MemoryEventStatus;
  /** MM-GRF-7: happenedStart ?? happenedEnd ?? mentionedAt ?? createdAt. */
  sourceTime: string;
  sourceBlockId: string | null;
  /** The messages the event came from (provenance down to the conversation). */
  sourceMessageIds: string[];
}

export interface LoadedGraphNodes {
  /** Effective views (MM-GRF-8) of the requested nodes that are visible; others are absent. */
  views: Map<string, EffectiveNode>;
  /** Names of every node that an edge of the requested nodes touches (and of the nodes). */
  names: Map<string, string>;
  /** Every event cited by the requested nodes, their facts and edges, in any status. */
  events: Map<string, GraphEventInfo>;
  /** Earliest source time of each requested node's own sources ('' when it has none known). */
  firstSourceTimes: Map<string, string>;
}

/**
 * Loads the effective views of `nodeIds` in a fixed number of queries: the node rows, their facts,
 * the edges touching them, endpoint names, and the cited events' statuses and times. `db` is a
 * read-model handle with its schema applied. The one loader of graph views: the projector (search
 * documents), graph search and the graph reads all see a node the same way.
 */
export async function loadEffectiveNodes(
  db: Kysely<ReadModelTables>,
  space: SpaceScope,
  nodeIds: readonly string[],
): Promise<LoadedGraphNodes> {
  const ids = [...new Set(nodeIds)];
  const empty: LoadedGraphNodes = {
    views: new Map(),
    names: new Map(),
    events: new Map(),
    firstSourceTimes: new Map(),
  };
  if (ids.length === 0) return empty;
  const [nodes, facts, edges] = await Promise.all([
    db
      .selectFrom('graph_nodes')
      .selectAll()
      .where(inSpace(space))
      .where('node_id', 'in', ids)
      .orderBy('node_id')
      .execute(),
    db
      .selectFrom('graph_facts')
      .selectAll()
      .where(inSpace(space))
      .where('node_id', 'in', ids)
      .orderBy('fact_id')
      .execute(),
    db
      .selectFrom('graph_edges')
      .selectAll()
      .where(inSpace(space))
      .where((eb) => eb.or([eb('from_id', 'in', ids), eb('to_id', 'in', ids)]))
      .orderBy('edge_id')
      .execute(),
  ]);
  if (nodes.length === 0) return empty;

  const eventIds = new Set<string>();
  for (const n of nodes) {
    for (const id of [...n.source_event_ids, ...n.name_source_event_ids]) eventIds.add(id);
    for (const a of [...n.aliases, ...n.tags]) for (const id of a.sourceEventIds) eventIds.add(id);
  }
  for (const x of [...facts, ...edges]) for (const id of x.source_event_ids) eventIds.add(id);
  const known = new Set(nodes.map((n) => n.node_id));
  const endpointIds = [
    ...new Set(edges.flatMap((e) => [e.from_id, e.to_id]).filter((id) => !known.has(id))),
  ];
  const [eventRows, endpointRows] = await Promise.all([
    eventIds.size === 0
      ? Promise.resolve([])
      : db
          .selectFrom('memory_events')
          .select([
            'event_id',
            'title',
            'status',
            'happened_start',
            'happened_end',
            'mentioned_at',
            'created_at',
            'source_block_id',
            'source_message_ids',
          ])
          .where(inSpace(space))
          .where('event_id', 'in', [...eventIds])
          .execute(),
    endpointIds.length === 0
      ? Promise.resolve([])
      : db
          .selectFrom('graph_nodes')
          .select(['node_id', 'name'])
          .where(inSpace(space))
          .where('node_id', 'in', endpointIds)
          .execute(),
  ]);

  const events = new Map<string, GraphEventInfo>(
    eventRows.map((e) => [
      e.event_id,
      {
        id: e.event_id,
        title: e.title,
        status: e.status,
        sourceTime: e.happened_start ?? e.happened_end ?? e.mentioned_at ?? e.created_at,
        sourceBlockId: e.source_block_id,
        sourceMessageIds: e.source_message_ids,
      },
    ]),
  );
  const names = new Map<string, string>([
    ...nodes.map((n) => [n.node_id, n.name] as const),
    ...endpointRows.map((n) => [n.node_id, n.name] as const),
  ]);
  const info = [...events.values()].map(({ id, status, sourceTime }) => ({
    id,
    status,
    sourceTime,
  }));
  const allEdges = edges.map(toEdge);
  const views = new Map<string, EffectiveNode>();
  const firstSourceTimes = new Map<string, string>();
  for (const n of nodes) {
    const view = effectiveNode(
      toNode(n),
      facts.filter((f) => f.node_id === n.node_id).map(toFact),
      allEdges,
      info,
    );
    if (view) views.set(n.node_id, view);
    const times = n.source_event_ids.flatMap((id) => {
      const time = events.get(id)?.sourceTime;
      return time === undefined ? [] : [time];
    });
    // ISO-8601 strings: the smallest is the earliest (a bare date sorts before that day's times).
    firstSourceTimes.set(n.node_id, times.sort()[0] ?? '');
  }
  return { views, names, events, firstSourceTimes };
}
