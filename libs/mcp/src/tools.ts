import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { StrataGateError, type ClientBody, type StrataGate } from '@stratagate/client';

/*
 * The agent-facing operations of the memory (memory model §14) as MCP tools. Each tool is one
 * API call through the TypeScript client, with the caller's API key, so the API's validation,
 * tenancy and errors hold unchanged; the descriptions are written for the model that calls them.
 */

export const MCP_SERVER_NAME = 'stratagate';

/** Where the tools act when a call names no space or thread. */
export interface McpScope {
  spaceId?: string;
  threadId?: string;
}

const id = z.string().min(1).max(200);
const where = {
  spaceId: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .describe('The memory space; leave out to use the one this server was started for.'),
  threadId: id
    .optional()
    .describe('Your conversation (session) id; leave out to use the configured one.'),
};
const BATCH_NOTE =
  ' Opens an evidence batch: the answer has `batchId` and `evidenceRefs`. Before you answer, call assess_evidence on it, then adopt_evidence with the refs your answer used ([] if none).';

// Every field the API takes, checked against the generated types both ways: a field added to or
// dropped from the API fails the typecheck here until this list follows.
const PROFILE_FIELD_SET = {
  userPreferredName: true,
  assistantPreferredName: true,
  preferredLanguage: true,
  reasoningLanguage: true,
  defaultLocation: true,
  homeCity: true,
  currentCity: true,
  responsePreferences: true,
  standingInstructions: true,
  userBackground: true,
  longTermGoals: true,
  persistentNotes: true,
} satisfies Record<ClientBody<'proposeProfileChange'>['field'], true>;
const PROFILE_FIELDS = Object.keys(PROFILE_FIELD_SET) as (keyof typeof PROFILE_FIELD_SET)[];

class NoScope extends Error {}

function scoped(args: McpScope, defaults: McpScope) {
  const spaceId = args.spaceId ?? defaults.spaceId;
  const threadId = args.threadId ?? defaults.threadId;
  if (!spaceId) throw new NoScope('no space: pass spaceId, or start the server with a space');
  if (!threadId) throw new NoScope('no thread: pass threadId, or start the server with a thread');
  return { spaceId, threadId };
}

/** The space alone, for reads that belong to no conversation (the topic directory). */
function spaceScoped(args: McpScope, defaults: McpScope) {
  const spaceId = args.spaceId ?? defaults.spaceId;
  if (!spaceId) throw new NoScope('no space: pass spaceId, or start the server with a space');
  return spaceId;
}

function result(value: unknown): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(value) }],
    structuredContent: value as Record<string, unknown>,
  };
}

/** A refusal the model can read and act on: the API's code, message and failed fields. */
function failure(error: unknown): CallToolResult {
  const body =
    error instanceof StrataGateError
      ? {
          error: {
            code: error.code,
            status: error.status,
            message: error.message,
            ...(error.issues.length > 0 ? { issues: error.issues } : {}),
            ...(error.details !== undefined ? { details: error.details } : {}),
          },
        }
      : error instanceof NoScope
        ? { error: { code: 'invalid_request', message: error.message } }
        : null;
  if (!body) throw error;
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
}

/** An MCP server whose tools call the API through `client`. */
export function createMcpServer(client: StrataGate, defaults: McpScope = {}): McpServer {
  const server = new McpServer({ name: MCP_SERVER_NAME, version: '0.1.0' });

  // What `remember` and other agents recorded, against what was extracted from conversations.
  const agentMemoryWeight = z
    .number()
    .min(0)
    .max(5)
    .optional()
    .describe(
      'How much memory recorded by agents (remember) counts beside memory extracted from conversations: 1 the same (default), 0 leaves it out.',
    );

  function tool<S extends z.ZodRawShape>(
    name: string,
    title: string,
    description: string,
    input: S,
    run: (args: z.infer<z.ZodObject<S & typeof where>>) => Promise<unknown>,
  ) {
    type Args = z.infer<z.ZodObject<S & typeof where>>;
    const handle = async (args: Args): Promise<CallToolResult> => {
      try {
        return result(await run(args));
      } catch (error) {
        return failure(error);
      }
    };
    // The SDK's callback type is computed from the shape; for a generic shape it cannot be.
    server.registerTool(
      name,
      { title, description, inputSchema: { ...where, ...input } },
      handle as never,
    );
  }

  tool(
    'search_events',
    'Search memory events',
    'Search what happened or was decided in earlier conversations (memory events: who, what, when it was said and when it happened). Use it first for questions about the past, plans, decisions or preferences.' +
      BATCH_NOTE,
    {
      query: z
        .string()
        .max(2000)
        .describe('Words to look for, e.g. "Atlas package manager"; may be empty with a topic.'),
      topicId: z
        .string()
        .min(1)
        .max(200)
        .optional()
        .describe("Only this topic's events (an id from list_topics or expand_topic)."),
      limit: z.number().int().min(1).max(20).optional().describe('Most hits (default 6).'),
      offset: z.number().int().min(0).max(1000).optional().describe('Hits to skip (paging).'),
      temporalIntent: z
        .enum(['first', 'latest'])
        .optional()
        .describe('Prefer the earliest or the latest occurrence.'),
      eventType: z.string().min(1).max(200).optional().describe('e.g. "decision", "trip".'),
      participants: z
        .array(z.string().min(1).max(200))
        .max(10)
        .optional()
        .describe('People who must take part.'),
      happenedFrom: z.string().optional().describe('Earliest date it happened (YYYY-MM-DD).'),
      happenedTo: z.string().optional().describe('Latest date it happened (YYYY-MM-DD).'),
      agentMemoryWeight,
    },
    ({ spaceId, threadId, ...body }) =>
      client.call('searchEvents', { ...scoped({ spaceId, threadId }, defaults), body }),
  );

  tool(
    'search_graph',
    'Search the knowledge graph',
    'Search the people, projects, tools, organisations and places mentioned so far, with their current facts and relations (e.g. "Atlas package manager", "Caroline location").' +
      BATCH_NOTE,
    {
      query: z.string().min(1).max(2000).describe('Names or facts to look for.'),
      limit: z.number().int().min(1).max(20).optional().describe('Most nodes (default 8).'),
    },
    ({ spaceId, threadId, ...body }) =>
      client.call('searchGraph', { ...scoped({ spaceId, threadId }, defaults), body }),
  );

  tool(
    'search_raw',
    'Search the conversation text',
    'Search the exact words of earlier messages, each with the messages around it. Use it when memory events lack a detail (a number, a quote, a name).' +
      BATCH_NOTE,
    {
      query: z.string().min(1).max(2000).describe('Words to look for.'),
      limit: z.number().int().min(1).max(20).optional().describe('Most hits (default 6).'),
      scope: z
        .enum(['space', 'session'])
        .optional()
        .describe('`space`: every session (default); `session`: only this conversation.'),
    },
    ({ spaceId, threadId, ...body }) =>
      client.call('searchRawMessages', { ...scoped({ spaceId, threadId }, defaults), body }),
  );

  tool(
    'expand_event',
    'Read one memory event in full',
    'Read one memory event with its source messages, by the id in an `event:<id>` ref.' +
      BATCH_NOTE,
    { eventId: id.describe('The event id, without the `event:` prefix.') },
    ({ spaceId, threadId, eventId }) => {
      const at = scoped({ spaceId, threadId }, defaults);
      return client.call('expandEvent', {
        spaceId: at.spaceId,
        eventId,
        body: { threadId: at.threadId },
      });
    },
  );

  tool(
    'expand_graph_node',
    'Read one graph node in full',
    'Read one person, project or thing from the graph: its current and past facts, its relations and the events that state them.' +
      BATCH_NOTE,
    { nodeId: id.describe('The node id, without the `node:` prefix.') },
    ({ spaceId, threadId, nodeId }) => {
      const at = scoped({ spaceId, threadId }, defaults);
      return client.call('expandGraphNode', {
        spaceId: at.spaceId,
        nodeId,
        body: { threadId: at.threadId },
      });
    },
  );

  tool(
    'list_blocks',
    'List conversation blocks',
    "List the blocks of this conversation (or the space's newest), each at the level its age shows: recent ones in full, older ones as summaries or titles." +
      BATCH_NOTE,
    {
      scope: z
        .enum(['session', 'space'])
        .optional()
        .describe('`session`: this conversation (default); `space`: every session.'),
      limit: z.number().int().min(1).max(100).optional().describe('Newest blocks (default 20).'),
    },
    ({ spaceId, threadId, ...body }) =>
      client.call('listBlocks', { ...scoped({ spaceId, threadId }, defaults), body }),
  );

  tool(
    'expand_block',
    'Read a block in more detail',
    'Lift an older block to a fuller level: `raw` for the exact messages, `next` for one level more, or a level L0 (title) to L5 (raw).' +
      BATCH_NOTE,
    {
      blockId: id.describe('The block id.'),
      target: z
        .enum(['raw', 'next', 'L0', 'L1', 'L2', 'L3', 'L4', 'L5'])
        .optional()
        .describe('How far to lift it (default `next`).'),
    },
    ({ spaceId, threadId, blockId, target }) => {
      const at = scoped({ spaceId, threadId }, defaults);
      return client.call('expandBlock', {
        spaceId: at.spaceId,
        blockId,
        body: { threadId: at.threadId, ...(target ? { target } : {}) },
      });
    },
  );

  tool(
    'assess_evidence',
    'Judge what a search found',
    'Say whether an evidence batch answers the question. `sufficient` needs at least one ref from the batch and next_strategy `answer`; otherwise say what is missing and what you will try next.',
    {
      batchId: id.optional().describe('The batch to judge (default: the latest one).'),
      verdict: z.enum(['sufficient', 'partial', 'wrong']),
      evidence_refs: z
        .array(z.string())
        .max(8)
        .describe('The refs of the batch that support the verdict.'),
      fit: z.string().max(160).describe('How the evidence answers the question, briefly.'),
      missing: z.string().max(160).optional().describe('What is still missing.'),
      next_strategy: z.enum([
        'answer',
        'search_events',
        'expand_event',
        'search_graph',
        'expand_graph_node',
        'search_raw',
        'expand_block',
      ]),
    },
    ({ spaceId, threadId, ...body }) =>
      client.call('assessEvidence', { ...scoped({ spaceId, threadId }, defaults), body }),
  );

  tool(
    'adopt_evidence',
    'Record the evidence your answer used',
    'After answering, list the refs your answer actually used (from a sufficient assessment); they are strengthened in memory. Pass [] to close a batch you did not use.',
    {
      batchId: id.optional().describe('The batch (default: the latest one).'),
      evidence_refs: z.array(z.string()).max(64).describe('Only refs the answer used.'),
      receiptId: id
        .optional()
        .describe('The same id on a retry of this call records it once (default: a new one).'),
    },
    ({ spaceId, threadId, ...body }) =>
      client.call('adoptEvidence', { ...scoped({ spaceId, threadId }, defaults), body }),
  );

  tool(
    'remember',
    'Remember a statement now',
    'Record one self-contained statement for later conversations ("Caroline prefers tea to coffee"). A fact becomes a memory event (a duplicate strengthens what is known, a contradiction is marked for review); a standing setting of the user goes to their profile; a one-off request is kept nowhere.',
    {
      content: z.string().min(1).max(4000).describe('One self-contained sentence.'),
      category: z.enum(['preference', 'decision', 'correction', 'fact']).optional(),
      requestId: id
        .optional()
        .describe('The same id on a retry of this call records it once (default: a new one).'),
    },
    ({ spaceId, threadId, ...body }) =>
      client.call('remember', { ...scoped({ spaceId, threadId }, defaults), body }),
  );

  tool(
    'list_topics',
    'List the topic directory',
    'See what the memory holds, organised into lasting topics (a project, a person, a place) with their sections, and how many events each covers. Reading the directory opens no evidence batch and cites nothing: expand a topic, then search or expand its events to cite them.',
    {
      query: z.string().max(500).optional().describe('Words to rank topics by (e.g. "Atlas").'),
      category: z
        .enum(['preferences', 'decisions', 'work', 'relationships', 'other'])
        .optional()
        .describe('Only topics of this category.'),
      limit: z.number().int().min(1).max(20).optional().describe('Most topics (default 12).'),
      offset: z.number().int().min(0).max(100_000).optional().describe('Topics to skip (paging).'),
      agentMemoryWeight,
    },
    ({ spaceId, threadId, ...query }) =>
      client.call('listTopics', {
        spaceId: spaceScoped({ spaceId, threadId }, defaults),
        ...query,
      }),
  );

  tool(
    'expand_topic',
    'Read one topic',
    "Read one topic's overview: its sections and paragraphs (history, decisions, changes, open questions), each naming the memory events it rests on. Opens no evidence batch: expand or search those events to cite them.",
    {
      topicId: id.describe('The topic id from list_topics, e.g. "topic_3f2a9c41d0b7".'),
      agentMemoryWeight,
    },
    ({ spaceId, threadId, topicId, ...query }) =>
      client.call('expandTopic', {
        spaceId: spaceScoped({ spaceId, threadId }, defaults),
        topicId,
        ...query,
      }),
  );

  tool(
    'propose_profile_change',
    "Propose a change to the user's profile",
    "Propose one change to the user's standing profile (names, languages, cities, response preferences, standing instructions, goals). Ask the user to confirm: it is applied only if their next message says yes.",
    {
      field: z.enum(PROFILE_FIELDS),
      value: z.string().max(1500).describe('The whole new value ("" clears the field).'),
      reason: z.string().max(500).optional().describe('Why, in a sentence.'),
    },
    ({ spaceId, threadId, ...body }) =>
      client.call('proposeProfileChange', { ...scoped({ spaceId, threadId }, defaults), body }),
  );

  // Two templates: the MCP SDK matches a URI's path, not its query string, so the message
  // is a path segment; without one, recall answers for the conversation as it stands.
  const recallConfig = {
    title: 'Recall context',
    description:
      'Background for the next model call of a conversation: relevant memory events and graph facts, the faded earlier blocks and the open tail, as text ready for a system prompt. Add the user message about to be answered as the last path segment to recall for it.',
    mimeType: 'text/plain',
  };
  const readRecall = async (uri: URL, variables: Record<string, string | string[]>) => {
    const one = (name: string) => {
      const v = variables[name];
      return decodeURIComponent((Array.isArray(v) ? v[0] : v) ?? '');
    };
    const recall = await client.call('recall', {
      spaceId: one('spaceId'),
      threadId: one('threadId'),
      body: { message: one('message') },
    });
    return { contents: [{ uri: uri.href, mimeType: 'text/plain', text: recall.contextText }] };
  };
  server.registerResource(
    'recall',
    new ResourceTemplate(RECALL_TEMPLATE, {
      list: async () => {
        if (!defaults.spaceId || !defaults.threadId) return { resources: [] };
        const uri = recallUri(defaults.spaceId, defaults.threadId);
        return { resources: [{ uri, name: `recall for ${defaults.threadId}` }] };
      },
    }),
    recallConfig,
    readRecall,
  );
  server.registerResource(
    'recall-for-message',
    new ResourceTemplate(`${RECALL_TEMPLATE}/{message}`, { list: undefined }),
    recallConfig,
    readRecall,
  );

  return server;
}

const RECALL_TEMPLATE = 'stratagate://spaces/{spaceId}/threads/{threadId}/recall';

/** The recall resource of a conversation, optionally for the message about to be answered. */
export function recallUri(spaceId: string, threadId: string, message?: string): string {
  const base = `stratagate://spaces/${encodeURIComponent(spaceId)}/threads/${encodeURIComponent(threadId)}/recall`;
  return message ? `${base}/${encodeURIComponent(message)}` : base;
}
