import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake OpenAI-compatible server over real HTTP for tests: replies come from a script queue,
 * every request is recorded, and a request with nothing scripted gets a 500 (so an unexpected
 * extra call fails loudly instead of hanging). Exported for other suites, e.g. to prove that a
 * rebuild makes zero model calls.
 */
export type ScriptedReply =
  | {
      kind: 'completion';
      content: string;
      usage?: { prompt_tokens: number; completion_tokens: number };
      finishReason?: string;
    }
  | { kind: 'status'; status: number; body?: unknown; headers?: Record<string, string> }
  /** Never answers; the socket stays open until the client gives up or the server closes. */
  | { kind: 'hang' }
  /** Destroys the socket without a response: a network error for the client. */
  | { kind: 'drop' }
  /** `reply` after `ms`: a model that takes its time (benches, leases under load). */
  | { kind: 'delayed'; ms: number; reply: ScriptedReply };

export const reply = {
  json: (value: unknown, usage?: { prompt_tokens: number; completion_tokens: number }) =>
    reply.text(JSON.stringify(value), usage),
  text: (
    content: string,
    usage?: { prompt_tokens: number; completion_tokens: number },
  ): ScriptedReply => ({ kind: 'completion', content, ...(usage ? { usage } : {}) }),
  status: (status: number, body?: unknown, headers?: Record<string, string>): ScriptedReply => ({
    kind: 'status',
    status,
    ...(body === undefined ? {} : { body }),
    ...(headers ? { headers } : {}),
  }),
  hang: (): ScriptedReply => ({ kind: 'hang' }),
  drop: (): ScriptedReply => ({ kind: 'drop' }),
  delayed: (ms: number, then: ScriptedReply): ScriptedReply => ({
    kind: 'delayed',
    ms,
    reply: then,
  }),
};

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, or the raw text when it was not JSON. */
  body: unknown;
}

export interface FakeOpenAiServer {
  /** `http://127.0.0.1:<port>/v1`, as a provider's baseUrl. */
  readonly baseUrl: string;
  readonly requests: readonly RecordedRequest[];
  readonly requestCount: number;
  enqueue(...replies: ScriptedReply[]): void;
  /**
   * Answers computed from the request, used when the queue is empty: for end-to-end tests whose
   * replies depend on ids the system generated (e.g. a timeline event to supersede).
   */
  respondWith(handler: (body: unknown) => ScriptedReply | undefined): void;
  /** Resolves once `count` requests have arrived (for aborting mid-request). */
  waitForRequests(count: number): Promise<void>;
  close(): Promise<void>;
}

export async function startFakeOpenAiServer(): Promise<FakeOpenAiServer> {
  const queue: ScriptedReply[] = [];
  let handler: ((body: unknown) => ScriptedReply | undefined) | undefined;
  const requests: RecordedRequest[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: parseJson(raw),
      });
      const due = waiters.filter((w) => requests.length >= w.count);
      waiters.splice(0, waiters.length, ...waiters.filter((w) => !due.includes(w)));
      for (const w of due) w.resolve();
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        send(res, 404, { error: { message: `no route ${req.method} ${req.url}` } });
        return;
      }
      const next = queue.shift() ?? handler?.(requests.at(-1)?.body);
      if (!next) {
        send(res, 500, { error: { message: 'fake server: no scripted reply left' } });
        return;
      }
      respond(res, next, requests.at(-1)?.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    get requestCount() {
      return requests.length;
    },
    enqueue: (...replies) => queue.push(...replies),
    respondWith: (fn) => {
      handler = fn;
    },
    waitForRequests: (count) =>
      requests.length >= count
        ? Promise.resolve()
        : new Promise((resolve) => waiters.push({ count, resolve })),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Hanging requests would otherwise keep close() waiting forever.
        server.closeAllConnections();
      }),
  };
}

function respond(res: ServerResponse, script: ScriptedReply, body: unknown): void {
  switch (script.kind) {
    case 'completion': {
      const model = (body as { model?: unknown } | null)?.model;
      send(res, 200, {
        id: 'chatcmpl-fake',
        object: 'chat.completion',
        created: 0,
        model: typeof model === 'string' ? model : 'fake',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: script.content },
            finish_reason: script.finishReason ?? 'stop',
          },
        ],
        ...(script.usage ? { usage: script.usage } : {}),
      });
      return;
    }
    case 'status':
      send(
        res,
        script.status,
        script.body ?? { error: { message: `status ${script.status}` } },
        script.headers,
      );
      return;
    case 'hang':
      return;
    case 'drop':
      res.socket?.destroy();
      return;
    case 'delayed': {
      const timer = setTimeout(() => respond(res, script.reply, body), script.ms);
      // A client that gave up (or a server closing) needs no answer.
      res.once('close', () => clearTimeout(timer));
      return;
    }
    default: {
      const unknownKind: never = script;
      throw new Error(`unknown scripted reply ${JSON.stringify(unknownKind)}`);
    }
  }
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(text);
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}
