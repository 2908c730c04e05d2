import type { Kysely } from 'kysely';
import { z } from 'zod';
import { effectiveNode, type SpaceRef } from '@stratagate/domain';
import {
  errorResponses,
  IdParam,
  notFound,
  SpaceIdParam,
  tenantOf,
  type TypedApp,
} from '@stratagate/http';
import { toEdge, toFact, toNode, type GraphNodeRow, type ReadModelTables } from '@stratagate/store';
import type { QueryContext } from './blocks.route.ts';
import { GraphNodeDetailReply, GraphNodeListReply } from './graph.schema.ts';
import { sourceMessages } from './memory-events.route.ts';
import { getSpace, rm } from './read-model.queries.ts';

const sourceTime = (e: {
  happened_start: string | null;
  happened_end: string | null;
  mentioned_at: string | null;
  created_at: string;
}) => e.happened_start ?? e.happened_end ?? e.mentioned_at ?? e.created_at;

/** The effective view of nodes (MM-GRF-8): current and historical facts and edges, cited sources. */
async function effectiveNodes(db: Kysely<ReadModelTables>, space: SpaceRef, nodes: GraphNodeRow[]) {
  if (nodes.length === 0) return [];
  const ids = nodes.map((n) => n.node_id);
  const [facts, edges] = await Promise.all([
    db
      .selectFrom('graph_facts')
      .selectAll()
      .where('tenant_id', '=', space.tenantId)
      .where('space_id', '=', space.spaceId)
      .where('node_id', 'in', ids)
      .execute(),
    db
      .selectFrom('graph_edges')
      .selectAll()
      .where('tenant_id', '=', space.tenantId)
      .where('space_id', '=', space.spaceId)
      .where((eb) => eb.or([eb('from_id', 'in', ids), eb('to_id', 'in', ids)]))
      .execute(),
  ]);
  const eventIds = new Set<string>();
  for (const n of nodes) {
    for (const id of [...n.source_event_ids, ...n.name_source_event_ids]) eventIds.add(id);
    for (const a of [...n.aliases, ...n.tags]) for (const id of a.sourceEventIds) eventIds.add(id);
  }
  for (const x of [...facts, ...edges]) for (const id of x.source_event_ids) eventIds.add(id);
  const events =
    eventIds.size === 0
      ? []
      : await db
          .selectFrom('memory_events')
          .select([
            'event_id',
            'title',
            'status',
            'happened_start',
            'happened_end',
            'mentioned_at',
            'created_at',
            'source_message_ids',
          ])
          .where('tenant_id', '=', space.tenantId)
          .where('space_id', '=', space.spaceId)
          .where('event_id', 'in', [...eventIds])
          .execute();
  const info = events.map((e) => ({ id: e.event_id, status: e.status, sourceTime: sourceTime(e) }));
  const byEvent = new Map(events.map((e) => [e.event_id, e]));
  // Names of every edge endpoint, so a client can show "X –uses→ pnpm" without another call.
  const endpointIds = [...new Set(edges.flatMap((e) => [e.from_id, e.to_id]))];
  const endpoints =
    endpointIds.length === 0
      ? []
      : await db
          .selectFrom('graph_nodes')
          .select(['node_id', 'name'])
          .where('tenant_id', '=', space.tenantId)
          .where('space_id', '=', space.spaceId)
          .where('node_id', 'in', endpointIds)
          .execute();
  const names = new Map(endpoints.map((n) => [n.node_id, n.name]));
  return nodes.flatMap((n) => {
    const view = effectiveNode(
      toNode(n),
      facts.filter((f) => f.node_id === n.node_id).map(toFact),
      edges.map(toEdge),
      info,
    );
    if (!view) return [];
    return [
      {
        ...view,
        provenance: view.provenanceEventIds.flatMap((id) => {
          const e = byEvent.get(id);
          return e ? [{ eventId: id, title: e.title, sourceMessageIds: e.source_message_ids }] : [];
        }),
        nodeNames: Object.fromEntries(names),
      },
    ];
  });
}

export function graphRoutes(ctx: QueryContext) {
  return (app: TypedApp) => {
    app.get(
      '/v1/spaces/:spaceId/graph/nodes',
      {
        schema: {
          tags: ['query'],
          summary: 'Visible knowledge-graph nodes with their current state (MM-GRF-8)',
          params: z.object({ spaceId: SpaceIdParam }),
          querystring: z.object({
            type: z.enum(['person', 'project', 'organization', 'tool', 'place']).optional(),
            limit: z.coerce.number().int().min(1).max(100).default(50),
            offset: z.coerce.number().int().min(0).default(0),
          }),
          response: {
            200: GraphNodeListReply,
            ...errorResponses({
              404: 'The space does not exist in the tenant of the API key (`space_not_found`).',
            }),
          },
        },
      },
      async (request) => {
        const space = { tenantId: tenantOf(request), spaceId: request.params.spaceId };
        const db = rm(ctx.db, ctx.schema);
        if (!(await getSpace(db, space))) throw notFound('space', space.spaceId);
        let q = db
          .selectFrom('graph_nodes')
          .selectAll()
          .where('tenant_id', '=', space.tenantId)
          .where('space_id', '=', space.spaceId)
          .where('status', 'in', ['active', 'disputed']);
        if (request.query.type) q = q.where('type', '=', request.query.type);
        const rows = await q
          .orderBy('created_position')
          .orderBy('node_id')
          .limit(request.query.limit)
          .offset(request.query.offset)
          .execute();
        return { spaceId: space.spaceId, nodes: await effectiveNodes(db, space, rows) };
      },
    );

    app.get(
      '/v1/spaces/:spaceId/graph/nodes/:nodeId',
      {
        schema: {
          tags: ['query'],
          summary: 'One node: current and historical facts and edges, provenance to memory events',
          params: z.object({ spaceId: SpaceIdParam, nodeId: IdParam }),
          response: {
            200: GraphNodeDetailReply,
            ...errorResponses({
              404: 'The space does not exist, or the node is not visible: unknown, superseded, archived or resting only on forgotten events (`space_not_found`, `graph_node_not_found`).',
            }),
          },
        },
      },
      async (request) => {
        const space = { tenantId: tenantOf(request), spaceId: request.params.spaceId };
        const db = rm(ctx.db, ctx.schema);
        if (!(await getSpace(db, space))) throw notFound('space', space.spaceId);
        const row = await db
          .selectFrom('graph_nodes')
          .selectAll()
          .where('tenant_id', '=', space.tenantId)
          .where('space_id', '=', space.spaceId)
          .where('node_id', '=', request.params.nodeId)
          .executeTakeFirst();
        const [view] = row ? await effectiveNodes(db, space, [row]) : [];
        if (!view) throw notFound('graph_node', request.params.nodeId);
        // Provenance all the way down: each cited event with the messages it came from.
        const provenance = await Promise.all(
          view.provenance.map(async (p) => ({
            ...p,
            sources: await sourceMessages(db, space, p.sourceMessageIds),
          })),
        );
        return { ...view, provenance };
      },
    );
  };
}
