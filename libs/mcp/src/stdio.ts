import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StrataGate } from '@stratagate/client';
import { createMcpServer, type McpScope } from './tools.ts';

export type StdioOptions = McpScope &
  (
    | {
        /** The API root, e.g. http://127.0.0.1:8787. */
        url: string;
        apiKey: string;
      }
    | {
        /** A client made by the caller, e.g. one that answers from a node in this process. */
        client: StrataGate;
      }
  );

/**
 * MCP over stdio for a host that starts the server itself (`stratagate mcp`): tools call the
 * API at `url` with `apiKey`, or through the caller's client. Resolves when the host closes the
 * connection.
 */
export async function serveMcpOverStdio(options: StdioOptions): Promise<void> {
  const client =
    'client' in options
      ? options.client
      : new StrataGate({ baseUrl: options.url, apiKey: options.apiKey });
  const server = createMcpServer(client, options);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  await server.connect(transport);
  await closed;
}
