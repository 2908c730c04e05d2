import { z } from 'zod';
import {
  errorResponses,
  IdParam,
  PageOffset,
  pageLimit,
  SpaceIdParam,
  spaceOf,
  type TypedApp,
} from '@stratagate/http';
import { contextOf } from './context.ts';
import { expandGraphNode, getGraphNode, listGraphNodes } from './graph.ts';
import {
  GraphNodeDetailReply,
  GraphNodeExpandBody,
  GraphNodeExpandReply,
  GraphNodeListReply,
  NodeType,
} from './graph.schema.ts';

export function graphRoutes(app: TypedApp): void {
  app.get(
    '/v1/spaces/:spaceId/graph/nodes',
    {
      schema: {
        tags: ['query'],
        operationId: 'listGraphNodes',
        summary: 'Visible knowledge-graph nodes with their current state',
        params: z.object({ spaceId: SpaceIdParam }),
        querystring: z.strictObject({
          type: NodeType.optional(),
          limit: pageLimit(100, 50),
          offset: PageOffset,
        }),
        response: {
          200: GraphNodeListReply,
          ...errorResponses({
            404: 'The space does not exist in the tenant of the API key (`space_not_found`).',
          }),
        },
      },
    },
    (request) => listGraphNodes(contextOf(request), spaceOf(request), request.query),
  );

  app.get(
    '/v1/spaces/:spaceId/graph/nodes/:nodeId',
    {
      schema: {
        tags: ['query'],
        operationId: 'getGraphNode',
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
    (request) => getGraphNode(contextOf(request), spaceOf(request), request.params),
  );

  app.post(
    '/v1/spaces/:spaceId/graph/nodes/:nodeId/expand',
    {
      schema: {
        tags: ['gate'],
        operationId: 'expandGraphNode',
        summary: 'Expand a graph node for an agent: opens an evidence batch holding it',
        description:
          'The node as `getGraphNode` shows it, with an evidence batch in the given thread holding `graph-node:<id>:expanded`; assessing and adopting that ref reinforces the node’s visible source events.',
        params: z.object({ spaceId: SpaceIdParam, nodeId: IdParam }),
        body: GraphNodeExpandBody,
        response: {
          200: GraphNodeExpandReply,
          ...errorResponses({
            404: 'The space does not exist, or the node is not visible (`space_not_found`, `graph_node_not_found`).',
            413: true,
          }),
        },
      },
    },
    (request) =>
      expandGraphNode(contextOf(request), spaceOf(request), {
        nodeId: request.params.nodeId,
        threadId: request.body.threadId,
      }),
  );
}
