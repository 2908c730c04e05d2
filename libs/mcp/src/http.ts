import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { z } from 'zod';
import { StrataGate } from '@stratagate/client';
import {
  IdParam,
  injectFetch,
  SpaceIdParam,
  unauthorized,
  type Principal,
  type TypedApp,
} from '@stratagate/http';
import { createMcpServer } from './tools.ts';

export interface McpHttpOptions {
  /** Checks an API key, as the /v1 routes do. */
  authenticate(key: string): Promise<Principal | null>;
}

const McpQuery = z.strictObject({
  space: SpaceIdParam.optional().describe('the space tools act on when a call names none'),
  thread: IdParam.optional().describe('the thread tools act on when a call names none'),
});

/**
 * MCP over Streamable HTTP at `/mcp`, stateless: every POST is answered by a server made for
 * it, acting with the request's own API key, so tenancy is the key's as on /v1. `?space=` and
 * `?thread=` set where tools act when a call names no space or thread.
 */
export function mcpPlugin(options: McpHttpOptions) {
  return async (app: TypedApp) => {
    const fetch = injectFetch(app);
    app.post('/mcp', { schema: { hide: true, querystring: McpQuery } }, async (request, reply) => {
      const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
      if (!match || !(await options.authenticate(match[1]!))) throw unauthorized();
      const client = new StrataGate({
        baseUrl: 'http://stratagate.internal',
        apiKey: match[1]!,
        fetch,
        retries: 0,
      });
      const server = createMcpServer(client, {
        ...(request.query.space ? { spaceId: request.query.space } : {}),
        ...(request.query.thread ? { threadId: request.query.thread } : {}),
      });
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      try {
        await server.connect(transport);
        const headers = new Headers();
        for (const [name, value] of Object.entries(request.headers)) {
          if (typeof value === 'string') headers.set(name, value);
        }
        const answer = await transport.handleRequest(
          new Request(`http://stratagate.internal${request.url}`, { method: 'POST', headers }),
          { parsedBody: request.body },
        );
        reply.code(answer.status);
        answer.headers.forEach((value, name) => void reply.header(name, value));
        return reply.send(Buffer.from(await answer.arrayBuffer()));
      } finally {
        await server.close();
      }
    });
  };
}
