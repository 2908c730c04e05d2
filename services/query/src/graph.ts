import type { Kysely } from 'kysely';
import { formatRef, type EffectiveNode, type NodeType, type SpaceRef } from '@stratagate/domain';
import { notFound, withinBytes } from '@stratagate/http';
import { loadEffectiveNodes, type LoadedGraphNodes, type ReadModelTables } from '@stratagate/store';
import { readModel, type QueryContext } from './context.ts';
import { openBatch } from './gate.ts';
import type {
  GraphNodeDetailReply,
  GraphNodeExpandReply,
  GraphNodeListReply,
} from './graph.schema.ts';
import { sourceMessages } from './memory-events.ts';
import { visibleNodeIds } from './read-model/graph.queries.ts';
import { requireSpace } from './spaces.ts';

/**
 * The effective views (MM-GRF-8) of `nodeIds` that are visible, in the order asked for, each
 * with its cited events and the names of its edges' endpoints.
 */
async function graphViews(db: Kysely<ReadModelTables>, space: SpaceRef, nodeIds: string[]) {
  const loaded = await loadEffectiveNodes(db, space, nodeIds);
  return nodeIds.flatMap((id) => {
    const view = loaded.views.get(id);
    return view ? [withProvenance(view, loaded)] : [];
  });
}

function withProvenance(view: EffectiveNode, loaded: LoadedGraphNodes) {
  const endpoints = [...view.currentEdges, ...view.historicalEdges].flatMap((e) => [
    e.fromId,
    e.toId,
  ]);
  return {
    ...view,
    provenance: view.provenanceEventIds.flatMap((id) => {
      const e = loaded.events.get(id);
      return e ? [{ eventId: id, title: e.title, sourceMessageIds: e.sourceMessageIds }] : [];
    }),
    // Names of every edge endpoint, so a client can show "X –uses→ pnpm" without another call.
    nodeNames: Object.fromEntries(
      endpoints.flatMap((id) => {
        const name = loaded.names.get(id);
        return name === undefined ? [] : [[id, name]];
      }),
    ),
  };
}

/**
 * A page of the visible knowledge-graph nodes with their current state (MM-GRF-8), bounded in
 * bytes: a node's facts and edges grow with the conversation.
 */
export async function listGraphNodes(
  ctx: QueryContext,
  space: SpaceRef,
  page: { type?: NodeType | undefined; limit: number; offset: number },
): Promise<GraphNodeListReply> {
  const db = readModel(ctx);
  await requireSpace(db, space);
  const ids = await visibleNodeIds(db, space, { ...page, limit: page.limit + 1 });
  const { items, truncated } = withinBytes(await graphViews(db, space, ids.slice(0, page.limit)));
  // The next page starts after the last node answered (ids without a view are skipped).
  const consumed =
    items.length === 0 ? Math.min(ids.length, page.limit) : ids.indexOf(items.at(-1)!.id) + 1;
  const more = truncated || ids.length > page.limit;
  return {
    spaceId: space.spaceId,
    nodes: items,
    nextOffset: more ? page.offset + consumed : null,
    truncated,
  };
}

/** One visible node with its facts and edges, and provenance down to the messages. */
export async function getGraphNode(
  ctx: QueryContext,
  space: SpaceRef,
  input: { nodeId: string },
): Promise<GraphNodeDetailReply> {
  const db = readModel(ctx);
  await requireSpace(db, space);
  const [view] = await graphViews(db, space, [input.nodeId]);
  if (!view) throw notFound('graph_node', input.nodeId);
  const provenance = await Promise.all(
    view.provenance.map(async (p) => ({
      ...p,
      sources: await sourceMessages(db, space, p.sourceMessageIds),
    })),
  );
  return { ...view, provenance };
}

/**
 * Expands a graph node for an agent (MM-GATE-2): the node as `getGraphNode` shows it, in an
 * evidence batch holding `graph-node:<id>:expanded`, which assess and adopt accept.
 */
export async function expandGraphNode(
  ctx: QueryContext,
  space: SpaceRef,
  input: { nodeId: string; threadId: string },
): Promise<GraphNodeExpandReply> {
  const node = await getGraphNode(ctx, space, input);
  const ref = formatRef({ kind: 'graph-node', id: node.id, expanded: true });
  const { batchId } = await openBatch(ctx, space, {
    threadId: input.threadId,
    operation: 'expand_graph_node',
    query: node.id,
    refs: [ref],
    retrievedEventIds: [],
  });
  return { batchId, evidenceRefs: [ref], node };
}
